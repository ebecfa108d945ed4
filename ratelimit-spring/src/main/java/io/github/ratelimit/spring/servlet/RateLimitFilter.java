package io.github.ratelimit.spring.servlet;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.call.CallRunner;
import io.github.ratelimit.spring.definition.FilterRuleSpec;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.PathRules;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.definition.internal.RuleSlots;
import io.github.ratelimit.spring.internal.HttpFailures;
import io.github.ratelimit.spring.web.ClientAddresses;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.PathContainer;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Applies the rules of {@code ratelimit.filter.rules} to requests. All limits of all rules that match one
 * request are decided in one round trip, all or nothing, with the same 429 answer as {@code @RateLimited}.
 * Counters are per rule (the rule's name), not per concrete path, unless a rule asks for per-path counts.
 */
public final class RateLimitFilter extends OncePerRequestFilter implements PathRules.Applied {

    private volatile PathRules rules;
    private final KeyResolvers keys;
    private final RateLimitDecisions decisions;
    private final ClientAddresses clients;
    private final Supplier<HandlerExceptionResolver> exceptionResolver;
    private final boolean allPolicies;
    private final Supplier<@Nullable ConcurrencyLimiter> slots;

    /**
     * @param rules the rules; each is checked now and fails with {@link InvalidFilterRuleException}
     * @param excludedPaths path patterns no rule applies to
     * @param decisions the decision flow shared with the annotations
     * @param plans the plan groups rules may name
     * @param exceptionResolver Spring MVC's resolver, which writes refusals as the exception handlers do; looked up
     *     on first use, and when it supplies null, refusals are answered with the status alone
     * @param allPolicies whether the RateLimit fields carry every item instead of what the client needs
     * @param keys the kinds of key rules may name
     */
    public RateLimitFilter(
            List<FilterRuleSpec> rules,
            List<String> excludedPaths,
            RateLimitDecisions decisions,
            Plans plans,
            ClientAddresses clients,
            Supplier<HandlerExceptionResolver> exceptionResolver,
            boolean allPolicies,
            KeyResolvers keys) {
        this(rules, excludedPaths, decisions, plans, clients, exceptionResolver, allPolicies, keys, () -> null);
    }

    /** @param slots the store of the rules' concurrency limits, or a supplier of null when there is none */
    public RateLimitFilter(
            List<FilterRuleSpec> rules,
            List<String> excludedPaths,
            RateLimitDecisions decisions,
            Plans plans,
            ClientAddresses clients,
            Supplier<HandlerExceptionResolver> exceptionResolver,
            boolean allPolicies,
            KeyResolvers keys,
            Supplier<@Nullable ConcurrencyLimiter> slots) {
        this.rules = new PathRules(rules, excludedPaths, plans, keys);
        this.keys = keys;
        this.decisions = decisions;
        this.clients = clients;
        this.exceptionResolver = exceptionResolver;
        this.allPolicies = allPolicies;
        this.slots = slots;
    }

    @Override
    public PathRules pathRules() {
        return rules;
    }

    @Override
    public Runnable prepare(PathRules.Specs rules, Plans plans) {
        PathRules refreshed = new PathRules(rules.rules(), rules.excludedPaths(), plans, keys);
        return () -> this.rules = refreshed;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String rawPath = pathWithinApplication(request);
        PathContainer path = PathContainer.parsePath(rawPath, DECODED);
        PathRules rules = this.rules; // one set of rules per request, whatever a refresh does meanwhile
        CallerContext view = PathRules.view(
                request,
                request::getHeader,
                () -> ServletRequests.principalName(request),
                () -> ServletRequests.clientAddress(clients, request),
                decision -> ServletCallerContext.report(request, response, decision, allPolicies));
        try {
            CallRunner.<Integer, Exception>run(
                    new CallRunner.Start(
                            decisions,
                            view,
                            caller -> rules.call(request.getMethod(), rawPath, path, caller, decisions),
                            HttpFailures.STATUS),
                    refusal -> {
                        answer(request, response, refusal);
                        return null;
                    },
                    end -> proceedWithSlots(request, response, chain, end, rules.slots(request.getMethod(), path)));
        } catch (IOException | ServletException | RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new ServletException(e);
        }
    }

    /**
     * Takes the slots of the matching rules' concurrency limits (refused: answered as a refusal, the chain never runs),
     * runs the rest of the chain, and gives the slots back with the answer's status, when an async request completes.
     */
    private @Nullable Integer proceedWithSlots(
            HttpServletRequest request,
            HttpServletResponse response,
            FilterChain chain,
            CallRunner.End end,
            List<RuleSlots.Limit> limits)
            throws IOException, ServletException {
        if (limits.isEmpty()) {
            return proceed(request, response, chain, end);
        }
        RuleSlots.Held held;
        try {
            held = RuleSlots.take(limits, slots.get());
        } catch (ConcurrencyLimitExceededException refused) {
            answer(request, response, refused);
            return null;
        }
        Integer status;
        try {
            status = proceed(request, response, chain, end);
        } catch (IOException | ServletException | RuntimeException | Error e) {
            held.failed();
            throw e;
        }
        if (!request.isAsyncStarted()) {
            held.answered(response.getStatus());
            return status;
        }
        request.getAsyncContext().addListener(new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
                held.answered(response.getStatus());
            }

            @Override
            public void onTimeout(AsyncEvent event) {
                held.failed();
            }

            @Override
            public void onError(AsyncEvent event) {
                held.failed();
            }

            @Override
            public void onStartAsync(AsyncEvent event) {}
        });
        return status;
    }

    /**
     * Runs the rest of the chain and gives the answer's status, which ends the call. Under rules that count failures
     * only, each status is told as it is set, and an async request's answer is told when it completes.
     */
    private static @Nullable Integer proceed(
            HttpServletRequest request, HttpServletResponse response, FilterChain chain, CallRunner.End end)
            throws IOException, ServletException {
        if (!end.awaited()) {
            chain.doFilter(request, response);
            return null;
        }
        StatusTelling telling = new StatusTelling(response, end);
        chain.doFilter(request, telling);
        if (!request.isAsyncStarted()) {
            return telling.getStatus();
        }
        end.answersLater();
        request.getAsyncContext().addListener(new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
                end.answered(telling.getStatus());
            }

            @Override
            public void onTimeout(AsyncEvent event) {}

            @Override
            public void onError(AsyncEvent event) {}

            @Override
            public void onStartAsync(AsyncEvent event) {}
        });
        return null;
    }

    /**
     * The response of a request under rules that count failures only: each status is told to the call as it is set,
     * before any of the answer can reach the client, so a failing one is counted before a caller's next call can slip
     * past it. The status the chain leaves (an error page, an async answer) ends the call.
     */
    static final class StatusTelling extends HttpServletResponseWrapper {

        private final CallRunner.End end;

        StatusTelling(HttpServletResponse response, CallRunner.End end) {
            super(response);
            this.end = end;
        }

        @Override
        public void setStatus(int status) {
            end.answering(status);
            super.setStatus(status);
        }

        @Override
        public void sendError(int status) throws IOException {
            end.answering(status);
            super.sendError(status);
        }

        @Override
        public void sendError(int status, String message) throws IOException {
            end.answering(status);
            super.sendError(status, message);
        }
    }

    /**
     * Answers a refusal the way Spring MVC answers the same exception thrown by a handler: through the application's
     * exception resolvers, so the starter's handlers (or the application's own) write one and the same answer for the
     * filter and for annotations. Without Spring MVC's resolver, the status alone.
     */
    private void answer(HttpServletRequest request, HttpServletResponse response, RuntimeException refusal)
            throws IOException {
        HandlerExceptionResolver resolver = exceptionResolver.get();
        if (resolver != null && resolver.resolveException(request, response, null, refusal) != null) {
            return;
        }
        response.sendError(
                refusal instanceof RateLimitExceededException || refusal instanceof ConcurrencyLimitExceededException
                        ? 429
                        : refusal instanceof RateLimitEvaluationException ? 400 : 503);
    }

    /**
     * The path the servlet container routes by: decoded and normalized ({@code //}, {@code /./} and
     * {@code /../} resolved), so that {@code //api/public} or {@code /api/./public} cannot slip past a rule for
     * {@code /api/public/**} while still reaching the same handler.
     */
    /**
     * How the container's path is read: as it is, already decoded. Decoding it again would fail on a {@code %} the
     * client sent encoded ({@code /api/%25zz} is {@code /api/%zz} here: a 500 for a harmless request) and would match
     * {@code /api/%2541} to a rule for {@code /api/A}.
     */
    static final PathContainer.Options DECODED = PathContainer.Options.create('/', false);

    /** A raw path decoded as the container would; one it cannot decode ({@code %zz}) is kept as it is. */
    private static String decodedOrAsIs(String raw) {
        try {
            return org.springframework.web.util.UriUtils.decode(raw, java.nio.charset.StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return raw;
        }
    }

    static String pathWithinApplication(HttpServletRequest request) {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        if (path.isEmpty()) {
            path = decodedOrAsIs(
                    request.getRequestURI().substring(request.getContextPath().length()));
        }
        return path.isEmpty() ? "/" : path;
    }
}
