package io.github.ratelimit.web;

import io.github.ratelimit.aop.RateLimitSettings;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.DeclaredLimit;
import io.github.ratelimit.core.DeclaredLimits;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.ShadowRejections;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.springframework.http.server.PathContainer;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Applies the rules of {@code ratelimit.filter.rules} to requests. All limits of all rules that match one
 * request are decided in one round trip, all or nothing, with the same 429 answer as {@code @RateLimited}.
 * Counters are per rule (the rule's name), not per concrete path, unless a rule asks for per-path counts.
 */
public final class RateLimitFilter extends OncePerRequestFilter implements DeclaredLimits {

    private final List<FilterRule> rules;
    private final List<PathPattern> excluded;
    private final RateLimiter limiter;
    private final ClientAddresses clients;
    private final RateLimitSettings settings;
    private final ShadowRejections shadowRejections = new ShadowRejections();

    /**
     * @param rules the rules; each is checked now and fails with {@link InvalidFilterRuleException}
     * @param excludedPaths path patterns no rule applies to
     * @param settings shadow and failure modes, asked on every request
     */
    public RateLimitFilter(
            List<FilterRuleSpec> rules,
            List<String> excludedPaths,
            RateLimiter limiter,
            ClientAddresses clients,
            RateLimitSettings settings) {
        List<FilterRule> compiled = new ArrayList<>();
        for (FilterRuleSpec spec : rules) {
            compiled.add(FilterRule.compile(spec));
        }
        compiled.sort(Comparator.comparingInt((FilterRule r) -> r.order).thenComparingInt(r -> r.index));
        this.rules = List.copyOf(compiled);
        this.excluded = FilterRule.parsePatterns(excludedPaths, "ratelimit.filter.exclude");
        this.limiter = limiter;
        this.clients = clients;
        this.settings = settings;
    }

    /** The limits of every rule. */
    @Override
    public List<DeclaredLimit> declaredLimits() {
        List<DeclaredLimit> all = new ArrayList<>();
        for (FilterRule rule : rules) {
            for (RateLimit limit : rule.limits) {
                all.add(new DeclaredLimit(
                        "ratelimit.filter.rules[" + rule.index + "] " + rule.paths,
                        limit,
                        List.of(rule.key),
                        rule.shadow,
                        rule.failClosed));
            }
        }
        return all;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String rawPath = pathWithinApplication(request);
        PathContainer path = PathContainer.parsePath(rawPath);
        if (excluded.stream().anyMatch(p -> p.matches(path))) {
            chain.doFilter(request, response);
            return;
        }
        String method = request.getMethod();
        String clientAddress = null;
        boolean shadowAll = settings.shadow().getAsBoolean();
        boolean failClosed = settings.failClosed().getAsBoolean();
        List<String> names = new ArrayList<>();
        List<LimitRequest> requests = new ArrayList<>();
        for (FilterRule rule : rules) {
            if (!rule.matches(method, path)) {
                continue;
            }
            if (clientAddress == null) {
                clientAddress = clients.clientAddress(request);
            }
            String identifier = rule.identifier(request, clientAddress);
            if (identifier == null) {
                if (rule.missingKey == FilterRuleSpec.MissingKey.REJECT) {
                    writeProblem(
                            response,
                            request,
                            400,
                            "Missing rate limit key",
                            "This request is rate limited by " + rule.keyDescription() + ", which is missing.",
                            Map.of());
                    return;
                }
                identifier = "ip\u0000" + clientAddress;
            }
            failClosed |= rule.failClosed;
            names.add(rule.name);
            if (rule.perPath) {
                identifier = identifier + '\u0000' + rawPath;
            }
            for (RateLimit limit : rule.limits) {
                requests.add(new LimitRequest(limit, identifier, rule.cost, shadowAll || rule.shadow));
            }
        }
        if (requests.isEmpty()) {
            chain.doFilter(request, response);
            return;
        }
        Decision decision;
        try {
            decision = limiter.tryAcquire(requests);
        } catch (RedisUnavailableException e) {
            String what = "rules " + names;
            if (failClosed) {
                settings.fallbacks().failedClosed(what, e);
                long seconds = Math.max(1, RateLimitHeaders.seconds(e.retryAfter()));
                response.setHeader(RateLimitHeaders.RETRY_AFTER, Long.toString(seconds));
                writeProblem(
                        response,
                        request,
                        503,
                        RedisUnavailableHandler.TITLE,
                        RedisUnavailableHandler.detail(seconds),
                        Map.of());
                return;
            }
            settings.fallbacks().failedOpen(what, e);
            chain.doFilter(request, response);
            return;
        }
        shadowRejections.record(decision);
        RateLimitHeaders.remember(request, decision);
        RateLimitHeaders.of(decision).forEach(response::setHeader);
        if (!decision.allowed()) {
            writeProblem(
                    response,
                    request,
                    429,
                    RateLimitExceptionHandler.TITLE,
                    RateLimitExceptionHandler.detail(decision),
                    Map.of("violated-policies", RateLimitHeaders.violatedPolicies(decision)));
            return;
        }
        chain.doFilter(request, response);
    }

    /**
     * The path the servlet container routes by: decoded and normalized ({@code //}, {@code /./} and
     * {@code /../} resolved), so that {@code //api/public} or {@code /api/./public} cannot slip past a rule for
     * {@code /api/public/**} while still reaching the same handler.
     */
    static String pathWithinApplication(HttpServletRequest request) {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        if (path.isEmpty()) {
            path = request.getRequestURI().substring(request.getContextPath().length());
        }
        return path.isEmpty() ? "/" : path;
    }

    /** Writes an RFC 9457 problem by hand: the filter runs outside Spring MVC's message converters. */
    private static void writeProblem(
            HttpServletResponse response,
            HttpServletRequest request,
            int status,
            String title,
            String detail,
            Map<String, List<String>> extra)
            throws IOException {
        StringBuilder json = new StringBuilder("{");
        if (status == 429) {
            json.append("\"type\":")
                    .append(quote(RateLimitExceptionHandler.QUOTA_EXCEEDED.toString()))
                    .append(',');
        }
        json.append("\"title\":")
                .append(quote(title))
                .append(",\"status\":")
                .append(status)
                .append(",\"detail\":")
                .append(quote(detail))
                .append(",\"instance\":")
                .append(quote(request.getRequestURI()));
        extra.forEach((name, values) -> {
            json.append(',').append(quote(name)).append(":[");
            for (int i = 0; i < values.size(); i++) {
                json.append(i == 0 ? "" : ",").append(quote(values.get(i)));
            }
            json.append(']');
        });
        json.append('}');
        byte[] body = json.toString().getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType("application/problem+json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
