package io.github.ratelimit.web;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitOutcome;
import io.github.ratelimit.core.RateLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The response fields of draft-ietf-httpapi-ratelimit-headers-11 and RFC 9110 for a decision.
 *
 * <p>Each limit is one policy, named after the limit; limits sharing a name are told apart by their window
 * ({@code "search-1s"}, {@code "search-1m"}). When one policy counts several identifiers (an IP address and a
 * user), each item carries a partition key {@code pk}: a hash, never the identifier itself.
 */
final class RateLimitHeaders {

    public static final String RATE_LIMIT = "RateLimit";
    public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
    public static final String RETRY_AFTER = "Retry-After";

    /** Request attribute holding the decisions made for the request so far (filter, then annotations). */
    static final String DECISIONS = RateLimitHeaders.class.getName() + ".decisions";

    private RateLimitHeaders() {}

    /**
     * Adds a decision to those of the request (the filter's, then the annotations'), and returns the headers that
     * describe all of them: the one place where a request's decisions are gathered.
     */
    static Map<String, String> record(jakarta.servlet.http.HttpServletRequest request, Decision decision) {
        return of(combine(remember(request, decision)));
    }

    /** Adds a decision to those of the request, so that later headers describe all of them. */
    @SuppressWarnings("unchecked")
    private static List<Decision> remember(jakarta.servlet.http.HttpServletRequest request, Decision decision) {
        List<Decision> decisions = (List<Decision>) request.getAttribute(DECISIONS);
        if (decisions == null) {
            decisions = new ArrayList<>(2);
            request.setAttribute(DECISIONS, decisions);
        }
        decisions.add(decision);
        return decisions;
    }

    /** The decisions of a request as one: every outcome, refused if any was refused. */
    private static Decision combine(List<Decision> decisions) {
        if (decisions.size() == 1) {
            return decisions.get(0);
        }
        List<LimitOutcome> outcomes = new ArrayList<>();
        boolean allowed = true;
        for (Decision decision : decisions) {
            outcomes.addAll(decision.outcomes());
            allowed &= decision.allowed();
        }
        return new Decision(
                allowed, outcomes, decisions.get(decisions.size() - 1).decidedAt());
    }

    /** The policy name used for each limit of the decision, in order of first appearance. */
    public static Map<RateLimit, String> policyNames(Decision decision) {
        Set<RateLimit> limits = new LinkedHashSet<>();
        decision.outcomes().forEach(o -> limits.add(o.request().limit()));
        Map<String, Integer> perName = new HashMap<>();
        limits.forEach(l -> perName.merge(l.name(), 1, Integer::sum));
        Map<String, Integer> perNameAndWindow = new HashMap<>();
        limits.forEach(l -> perNameAndWindow.merge(l.name() + "-" + window(l.window()), 1, Integer::sum));
        Map<RateLimit, String> names = new LinkedHashMap<>();
        for (RateLimit limit : limits) {
            String name = limit.name();
            if (perName.get(name) > 1) {
                name = name + "-" + window(limit.window());
                if (perNameAndWindow.get(name) > 1) {
                    name = name + "-" + limit.algorithm().name().toLowerCase() + "-" + limit.limit();
                }
            }
            names.put(limit, name);
        }
        return names;
    }

    /** {@code RateLimit-Policy} and {@code RateLimit} for any decision; {@code Retry-After} too if rejected. */
    public static Map<String, String> of(Decision decision) {
        Map<RateLimit, String> names = policyNames(decision);
        Map<RateLimit, Integer> identifiers = new HashMap<>();
        decision.outcomes().forEach(o -> identifiers.merge(o.request().limit(), 1, Integer::sum));
        List<String> policies = new ArrayList<>();
        List<String> states = new ArrayList<>();
        for (LimitOutcome outcome : decision.outcomes()) {
            RateLimit limit = outcome.request().limit();
            String partition = identifiers.get(limit) > 1 ? ";pk=:" + partitionKey(outcome) + ":" : "";
            String name = '"' + names.get(limit) + '"';
            policies.add(name + ";q=" + limit.limit() + ";w=" + seconds(limit.window()) + partition);
            Duration until = outcome.allowed() ? outcome.resetAfter() : outcome.retryAfter();
            states.add(name + ";r=" + outcome.remaining() + ";t=" + seconds(until) + partition);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(RATE_LIMIT_POLICY, String.join(", ", policies));
        headers.put(RATE_LIMIT, String.join(", ", states));
        if (!decision.allowed()) {
            headers.put(RETRY_AFTER, Long.toString(Math.max(1, seconds(decision.retryAfter()))));
        }
        return headers;
    }

    /** The names of the policies that rejected the decision. */
    public static List<String> violatedPolicies(Decision decision) {
        Map<RateLimit, String> names = policyNames(decision);
        return decision.rejected().stream()
                .map(o -> names.get(o.request().limit()))
                .distinct()
                .toList();
    }

    /** Whole seconds, rounded up: a client waiting that long is never early. */
    static long seconds(Duration duration) {
        long millis = Math.max(0, duration.toMillis());
        return (millis + 999) / 1000;
    }

    private static String window(Duration window) {
        long ms = window.toMillis();
        if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1_000 == 0) {
            return ms / 1_000 + "s";
        }
        return ms + "ms";
    }

    private static String partitionKey(LimitOutcome outcome) {
        byte[] digest = ClientIdentifier.digest(outcome.request().identifier());
        return Base64.getEncoder().encodeToString(Arrays.copyOf(digest, 9));
    }
}
