package io.github.ratelimit.autoconfigure.reactive;

import io.github.ratelimit.autoconfigure.FilterRuleSpec;
import io.github.ratelimit.autoconfigure.internal.ClientAddresses;
import io.github.ratelimit.autoconfigure.internal.DeferredInvocation;
import io.github.ratelimit.autoconfigure.internal.InvalidFilterRuleException;
import io.github.ratelimit.autoconfigure.internal.KeyResolvers;
import io.github.ratelimit.autoconfigure.internal.PathRules;
import io.github.ratelimit.autoconfigure.internal.Plans;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.decision.RateLimitDecisions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.springframework.core.Ordered;
import org.springframework.http.server.RequestPath;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The reactive side's filter: applies the rules of {@code ratelimit.filter.rules} to requests as the servlet
 * the servlet filter does (the same rules, client addresses, shadow mode, fail policy and 429 answer), without
 * blocking any thread; and puts the caller of every request into the Reactor context, where the interceptors of
 * reactive {@code @RateLimited}, {@code @SingleUse} and {@code @Locked} methods find it. Refusals are error signals
 * that {@link RateLimitWebExceptionHandler} answers.
 */
final class RateLimitWebFilter implements WebFilter, Ordered, PathRules.Applied {

    private final PathRules rules;
    private final RateLimitDecisions decisions;
    private final ClientAddresses clients;
    private final boolean allPolicies;
    private final int order;

    /**
     * @param rules the rules (empty for none); each is checked now and fails with {@link InvalidFilterRuleException}
     * @param excludedPaths path patterns no rule applies to
     * @param decisions the decision flow shared with the annotations; null when rate limits are off
     * @param plans the plan groups rules may name
     * @param clients how the client address is found
     * @param allPolicies whether the RateLimit fields carry every item instead of what the client needs
     * @param order the filter's order among web filters ({@code ratelimit.filter.order})
     * @param keys the kinds of key rules may name
     */
    public RateLimitWebFilter(
            List<FilterRuleSpec> rules,
            List<String> excludedPaths,
            RateLimitDecisions decisions,
            Plans plans,
            ClientAddresses clients,
            boolean allPolicies,
            int order,
            KeyResolvers keys) {
        this.rules = new PathRules(decisions == null ? List.of() : rules, excludedPaths, plans, keys);
        this.decisions = decisions;
        this.clients = clients;
        this.allPolicies = allPolicies;
        this.order = order;
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public PathRules pathRules() {
        return rules;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return exchange.getPrincipal()
                .map(principal -> Optional.ofNullable(principal.getName()))
                .defaultIfEmpty(Optional.empty())
                .flatMap(principal -> {
                    ReactiveCallerContext caller =
                            new ReactiveCallerContext(exchange, principal.orElse(null), clients, allPolicies);
                    return decide(exchange, caller)
                            .flatMap(failures -> failures.isEmpty()
                                    ? chain.filter(exchange)
                                    : countingFailures(exchange, chain, failures))
                            .contextWrite(context -> context.put(CallerContext.class, caller));
                });
    }

    /**
     * Runs the rest of the chain and takes the budget of the rules that count failures only when the answer fails (a
     * status of 400 or more, or an error), once, before the answer is committed: a caller never sees its failed answer
     * before the failure is counted, so its next call cannot slip past the limit.
     */
    private Mono<Void> countingFailures(ServerWebExchange exchange, WebFilterChain chain, Failures failures) {
        AtomicBoolean counted = new AtomicBoolean();
        Supplier<Mono<Void>> countOnce =
                () -> counted.compareAndSet(false, true) ? failures.count(decisions) : Mono.empty();
        exchange.getResponse()
                .beforeCommit(() -> Mono.defer(() -> {
                    var status = exchange.getResponse().getStatusCode();
                    return status != null && status.value() >= 400 ? countOnce.get() : Mono.empty();
                }));
        return chain.filter(exchange).onErrorResume(error -> countOnce.get().then(Mono.error(error)));
    }

    /** What a failed answer takes: the requests of the matching rules that count failures only, as one decision. */
    private record Failures(RateLimitDecisions.Call call) {

        static final Failures NONE = new Failures(null);

        static Failures of(RateLimitDecisions.Call asked) {
            RateLimitDecisions.Call failures = asked == null ? null : asked.failures();
            return failures == null || failures.requests().isEmpty() ? NONE : new Failures(failures);
        }

        boolean isEmpty() {
            return call == null;
        }

        Mono<Void> count(RateLimitDecisions decisions) {
            return DeferredInvocation.fromRedis(decisions.countFailuresAsync(call))
                    .then();
        }
    }

    /**
     * Completes with what a failed answer would take when the request may go on (nothing, for most rules); fails with
     * the refusal otherwise.
     */
    private Mono<Failures> decide(ServerWebExchange exchange, ReactiveCallerContext caller) {
        if (rules.isEmpty()) {
            return Mono.just(Failures.NONE);
        }
        ServerHttpRequest request = exchange.getRequest();
        RequestPath path = request.getPath();
        Mono<RateLimitDecisions.Outcome> decided = DeferredInvocation.fromRedis(decisions.decideAsync(
                caller,
                view -> rules.call(
                        request.getMethod().name(),
                        path.pathWithinApplication().value(),
                        path.pathWithinApplication(),
                        view,
                        decisions)));
        return decided.flatMap(outcome -> {
            RuntimeException refusal = outcome.refusal();
            if (refusal != null) {
                return Mono.error(refusal);
            }
            if (outcome.admitted() != null) {
                caller.allowed(outcome.admitted());
            }
            return Mono.just(Failures.of(outcome.call()));
        });
    }
}
