package io.github.ratelimit.core;

import java.util.List;

/**
 * A limit the application declares, for operators: where it comes from (a method or a filter rule), the limit,
 * and how callers are identified.
 *
 * @param source the annotated method or the rule ({@code ratelimit.filter.rules[0]})
 * @param limit the limit
 * @param keys the key expressions (annotations) or key kind (rules)
 * @param shadow whether it only counts and reports
 * @param failClosed whether calls are refused when Redis cannot decide
 */
public record DeclaredLimit(String source, RateLimit limit, List<String> keys, boolean shadow, boolean failClosed) {

    public DeclaredLimit {
        keys = List.copyOf(keys);
    }
}
