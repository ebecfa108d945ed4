package io.github.ratelimit.spring.web;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The response fields of draft-ietf-httpapi-ratelimit-headers-11 and RFC 9110 for a decision: {@code RateLimit-Policy}
 * and {@code RateLimit}, Structured Field Lists of Strings with parameters (RFC 9651), and {@code Retry-After}.
 *
 * <p>Every item has a name unique in its field that says what it is: the limit's name, its window when several limits
 * share the name ({@code search-1s}, {@code search-1m}), and which identifier it counts unless that is the default
 * client ({@code search-1s-ip}, {@code search-1s-userId}); a hash of the value only if one kind produced several
 * values. Names never contain an identifier's value and are the same on every call and instance.
 *
 * <p>By default the fields carry what a client needs: the items that refused the call, or else the most constraining
 * item (the least remaining); both fields carry the same items, so every name in {@code RateLimit} is declared in
 * {@code RateLimit-Policy}. With {@code ratelimit.headers.all-policies=true} they carry every item.
 */
public final class RateLimitHeaders {

    static final String RATE_LIMIT = "RateLimit";
    static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
    static final String RETRY_AFTER = "Retry-After";

    /** Request attribute holding the decisions made for the request so far (filter, then annotations). */
    private static final String DECISIONS = RateLimitHeaders.class.getName() + ".decisions";

    private static final Set<String> DEFAULT_KINDS = Set.of("#client", "client");

    private RateLimitHeaders() {}

    /**
     * Adds a decision to those of the request (the filter's, then the annotations'), and returns all of them as one:
     * the one place where a request's decisions are gathered, in the request's (or exchange's) attributes.
     */
    public static Decision record(
            Function<String, Object> attribute, BiConsumer<String, Object> setAttribute, Decision decision) {
        @SuppressWarnings("unchecked")
        List<Decision> decisions = (List<Decision>) attribute.apply(DECISIONS);
        if (decisions == null) {
            decisions = new ArrayList<>(2);
            setAttribute.accept(DECISIONS, decisions);
        }
        decisions.add(decision);
        return combine(decisions);
    }

    /** The decisions of a request as one: every outcome, refused if any was refused. */
    private static Decision combine(List<Decision> decisions) {
        if (decisions.size() == 1) {
            return decisions.get(0);
        }
        List<LimitOutcome> outcomes = new ArrayList<>();
        List<LimitRequest> requests = new ArrayList<>();
        boolean allowed = true;
        boolean local = false;
        for (Decision decision : decisions) {
            outcomes.addAll(decision.outcomes());
            requests.addAll(decision.requests());
            allowed &= decision.allowed();
            local |= decision.servedLocally();
        }
        return new Decision(
                allowed, outcomes, decisions.get(decisions.size() - 1).decidedAt(), local, requests);
    }

    /** {@code RateLimit-Policy} and {@code RateLimit}; {@code Retry-After} too when the call was refused. */
    public static Map<String, String> of(Decision decision, boolean allPolicies) {
        List<String> names = itemNames(decision);
        List<String> policies = new ArrayList<>();
        List<String> states = new ArrayList<>();
        for (int i : selected(decision, allPolicies)) {
            LimitOutcome outcome = decision.outcomes().get(i);
            RateLimit limit = outcome.request().limit();
            String name = '"' + names.get(i) + '"';
            Duration window = limit.period() != null ? limit.period().usual() : limit.window();
            policies.add(name + ";q=" + limit.ceiling() + ";w=" + Math.max(1, seconds(window)));
            long t = outcome.allowed() ? seconds(outcome.resetAfter()) : Math.max(1, seconds(outcome.retryAfter()));
            states.add(name + ";r=" + outcome.remaining() + ";t=" + t);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(RATE_LIMIT_POLICY, String.join(", ", policies));
        headers.put(RATE_LIMIT, String.join(", ", states));
        if (!decision.allowed()) {
            headers.put(RETRY_AFTER, Long.toString(Math.max(1, seconds(decision.retryAfter()))));
        }
        return headers;
    }

    /**
     * The fields of a concurrency limit's refusal: {@code RateLimit-Policy} with the draft's
     * {@code qu="concurrent-requests"} quota unit (no window: the quota is of calls in progress), {@code RateLimit}
     * with nothing remaining, and {@code Retry-After}.
     */
    public static Map<String, String> inProgress(ConcurrencyLimitExceededException refusal) {
        String item = '"' + refusal.name() + '"';
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(RATE_LIMIT_POLICY, item + ";q=" + refusal.max() + ";qu=\"concurrent-requests\"");
        headers.put(RATE_LIMIT, item + ";r=0");
        headers.put(RETRY_AFTER, Long.toString(Math.max(1, seconds(refusal.retryAfter()))));
        return headers;
    }

    /** The names of the items that refused the call. */
    public static List<String> violatedPolicies(Decision decision) {
        List<String> names = itemNames(decision);
        List<String> violated = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            LimitOutcome outcome = decision.outcomes().get(i);
            if (!outcome.allowed() && !outcome.request().shadow()) {
                violated.add(names.get(i));
            }
        }
        return violated;
    }

    /** The indexes of the outcomes to show: all, or those that refused, or the one with the least remaining. */
    private static List<Integer> selected(Decision decision, boolean all) {
        List<LimitOutcome> outcomes = decision.outcomes();
        List<Integer> chosen = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            LimitOutcome outcome = outcomes.get(i);
            if (all
                    || (!decision.allowed()
                            && !outcome.allowed()
                            && !outcome.request().shadow())) {
                chosen.add(i);
            }
        }
        if (chosen.isEmpty() && !outcomes.isEmpty()) {
            int least = 0;
            for (int i = 1; i < outcomes.size(); i++) {
                if (outcomes.get(i).remaining() < outcomes.get(least).remaining()) {
                    least = i;
                }
            }
            chosen.add(least);
        }
        return chosen;
    }

    /**
     * One name per outcome, unique within the decision, stable across calls and instances. Names are made from all the
     * call's requests, not from the outcomes a decision lists: a refusal served in the JVM lists only the limits that
     * refused, yet names them as Redis's answer to the same call does.
     */
    static List<String> itemNames(Decision decision) {
        Map<LimitRequest, String> byRequest = itemNames(new LinkedHashSet<>(decision.requests()));
        List<String> names = new ArrayList<>(decision.outcomes().size());
        for (LimitOutcome outcome : decision.outcomes()) {
            names.add(byRequest.get(outcome.request()));
        }
        return names;
    }

    private static Map<LimitRequest, String> itemNames(Set<LimitRequest> requests) {
        Set<RateLimit> limits = new LinkedHashSet<>();
        requests.forEach(r -> limits.add(r.limit()));
        Map<String, Integer> perName = new HashMap<>();
        limits.forEach(l -> perName.merge(l.name(), 1, Integer::sum));
        Map<String, Integer> perNameAndWindow = new HashMap<>();
        limits.forEach(l -> perNameAndWindow.merge(l.name() + "-" + window(l), 1, Integer::sum));
        Map<RateLimit, String> limitNames = new HashMap<>();
        for (RateLimit limit : limits) {
            String name = limit.name();
            if (perName.getOrDefault(name, 0) > 1) {
                name = name + "-" + window(limit);
                if (perNameAndWindow.getOrDefault(name, 0) > 1) {
                    name = name + "-" + limit.algorithm().name().toLowerCase(Locale.ROOT) + "-" + limit.limit();
                }
            }
            limitNames.put(limit, name);
        }
        Map<LimitRequest, String> names = new LinkedHashMap<>();
        for (LimitRequest request : requests) {
            String label = label(request.identifier().kind());
            String name = limitNames.get(request.limit());
            names.put(request, label == null ? name : name + "-" + label);
        }
        Map<String, Integer> uses = new HashMap<>();
        names.values().forEach(n -> uses.merge(n, 1, Integer::sum));
        names.replaceAll((request, name) -> uses.getOrDefault(name, 0) > 1
                ? name + "-" + HexFormat.of().formatHex(request.identifier().digest(), 0, 3)
                : name);
        return names;
    }

    /**
     * What an identifier's kind says, as a name part: {@code #userId ?: {}} gives {@code userId},
     * {@code header:x-api-key} gives {@code x-api-key}; null for the default client and for an identifier without a
     * kind.
     */
    private static @Nullable String label(@Nullable String kind) {
        if (kind == null) {
            return null;
        }
        if (DEFAULT_KINDS.contains(kind)) {
            return null;
        }
        if (kind.startsWith("header:")) {
            kind = kind.substring(7);
        } else if (kind.startsWith("spel:")) {
            kind = "spel";
        }
        StringBuilder out = new StringBuilder();
        for (int i = kind.startsWith("#") ? 1 : 0; i < kind.length(); i++) {
            char c = kind.charAt(i);
            if (Character.isLetterOrDigit(c) && c < 128 || c == '-' || c == '_') {
                out.append(c);
            } else if (out.length() > 0) {
                break;
            }
        }
        return out.length() == 0 ? "key" : out.toString();
    }

    /** Whole seconds, rounded up: a client waiting that long is never early. */
    public static long seconds(Duration duration) {
        long millis = Math.max(0, duration.toMillis());
        return (millis + 999) / 1000;
    }

    private static String window(RateLimit limit) {
        if (limit.period() != null) {
            return limit.period().unit().name().toLowerCase(Locale.ROOT);
        }
        long ms = limit.window().toMillis();
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
}
