package io.github.ratelimit.spring.definition;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.definition.DeclaredLimits.DeclaredLimit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Limits named in properties, each shaped like a path rule without paths, and applied where something names them (a
 * gateway route): compiled once, then asked by name. Decided by the same rule code as the path rules.
 */
public final class NamedLimits {

    private final Map<String, FilterRule> limits;
    private final Plans plans;
    private final String property;

    /**
     * @param specs the limits by name; each is checked now and fails with {@link InvalidFilterRuleException}
     * @param property where they are bound, such as {@code ratelimit.gateway.limits}
     * @param plans the plan groups limits may name
     * @param keys the kinds of key limits may name
     * @param defaultKey the key of a limit that names none
     */
    public NamedLimits(
            Map<String, FilterRuleSpec> specs, String property, Plans plans, KeyResolvers keys, String defaultKey) {
        Map<String, FilterRule> compiled = new LinkedHashMap<>();
        specs.forEach((name, spec) ->
                compiled.put(name, FilterRule.named(spec, name, property + "." + name, plans, keys, defaultKey)));
        this.limits = compiled;
        this.plans = plans;
        this.property = property;
    }

    /**
     * The names in a comma-separated list, each checked.
     *
     * @param where who names them, for the error, such as {@code route 'api'}
     * @throws IllegalArgumentException naming {@code where} and the names there are, for an empty list or an unknown
     *     name
     */
    public List<String> names(String list, String where) {
        List<String> names = new ArrayList<>();
        for (String name : list == null ? new String[0] : list.split(",")) {
            String trimmed = name.trim();
            if (!trimmed.isEmpty()) {
                if (!limits.containsKey(trimmed)) {
                    throw new IllegalArgumentException(where + " names the limit '" + trimmed
                            + "', which is not one of " + property + " " + new TreeSet<>(limits.keySet()));
                }
                names.add(trimmed);
            }
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException(where + " names no limit: give one or more of " + property + " "
                    + new TreeSet<>(limits.keySet()) + ", separated by commas");
        }
        return List.copyOf(names);
    }

    /**
     * What the named limits ask of one request, or null when none applies (a limit for other HTTP methods).
     *
     * @param names names {@link #names} checked
     * @param method the HTTP method
     * @param rawPath the path within the application, as counted per path
     * @throws RateLimitEvaluationException when a limit's key is absent from the request (answered 400)
     */
    public RateLimitDecisions.@Nullable Call call(
            List<String> names, String method, String rawPath, CallerContext view, RateLimitDecisions decisions) {
        RuleCall call = new RuleCall(plans, rawPath, view, decisions);
        for (String name : names) {
            FilterRule limit = java.util.Objects.requireNonNull(limits.get(name), name); // checked when the route was
            // the route chose the paths: only the limit's methods remain to match
            if (limit.appliesTo(method)) {
                call.add(limit);
            }
        }
        return call.build("limits");
    }

    /** The names of the limits. */
    public java.util.Set<String> names() {
        return limits.keySet();
    }

    /** The limits of every name. */
    public List<DeclaredLimit> declaredLimits() {
        List<DeclaredLimit> all = new ArrayList<>();
        for (FilterRule limit : limits.values()) {
            all.addAll(limit.definition.declared());
        }
        return all;
    }
}
