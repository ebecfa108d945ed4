package io.github.ratelimit.spring.definition.internal;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.CalendarPeriod;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.spring.definition.FilterRuleSpec;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * The parts of a rule that path rules ({@code ratelimit.filter.rules}, the gateway's and the protocols' rules) and
 * outbound client rules ({@code ratelimit.client.rules}) read alike: a limit and a list of path patterns, checked, with
 * the property that was wrong named in the {@link InvalidFilterRuleException}.
 */
public final class RuleParts {

    private RuleParts() {}

    /** One limit of a rule ({@code at} names it, such as {@code ratelimit.filter.rules[0].limits[1]}), checked. */
    public static RateLimit limit(FilterRuleSpec.LimitSpec limit, String name, String at) {
        if (limit.limit() < 1) {
            throw new InvalidFilterRuleException(at + ".limit", Messages.atLeast(null, 1, limit.limit()));
        }
        CalendarPeriod period;
        try {
            period = limit.calendarPeriod();
        } catch (IllegalArgumentException e) {
            throw new InvalidFilterRuleException(
                    at + (String.valueOf(e.getMessage()).startsWith("zone") ? ".zone" : ".period"), e.getMessage());
        }
        Algorithm algorithm = limit.algorithm() == null ? Algorithm.SLIDING_WINDOW : limit.algorithm();
        RateLimit made;
        if (period != null) {
            if (limit.window() != null) {
                throw new InvalidFilterRuleException(
                        at + ".window", "leave it out: period '" + limit.period() + "' gives the window");
            }
            if (algorithm == Algorithm.TOKEN_BUCKET) {
                throw new InvalidFilterRuleException(
                        at + ".algorithm", "a calendar period counts a fixed number per period; leave it out");
            }
            made = RateLimit.of(name, Algorithm.FIXED_WINDOW, limit.limit(), 1).inCalendar(period);
        } else {
            if (limit.window() == null || limit.window().toMillis() < 1) {
                throw new InvalidFilterRuleException(
                        at + ".window", "must be at least 1 ms (such as 1s, 1m, 1h), but was " + limit.window());
            }
            made = RateLimit.of(name, algorithm, limit.limit(), limit.window().toMillis());
        }
        if (limit.penalty() != null) {
            if (limit.penalty().isNegative() || limit.penalty().toMillis() < 1) {
                throw new InvalidFilterRuleException(
                        at + ".penalty", "must be at least 1 ms (such as 60s, 15m), but was " + limit.penalty());
            }
            made = made.withPenalty(Duration.ofMillis(limit.penalty().toMillis()));
        }
        if (limit.share() != null) {
            try {
                made = made.withShare(limit.share());
            } catch (IllegalArgumentException e) {
                throw new InvalidFilterRuleException(at + ".share", e.getMessage());
            }
        }
        if (limit.lease() != null) {
            try {
                made = made.withLease(limit.lease());
            } catch (IllegalArgumentException e) {
                throw new InvalidFilterRuleException(at + ".lease", e.getMessage());
            }
        }
        return made;
    }

    /**
     * Path patterns of a rule ({@code property} names the list, such as {@code ratelimit.filter.rules[0].paths}),
     * parsed: each must start with {@code /}.
     */
    public static List<PathPattern> patterns(List<String> patterns, String property) {
        List<PathPattern> parsed = new ArrayList<>();
        for (int i = 0; i < patterns.size(); i++) {
            String pattern = patterns.get(i) == null ? "" : patterns.get(i).trim();
            if (!pattern.startsWith("/")) {
                throw new InvalidFilterRuleException(
                        property + "[" + i + "]",
                        "must start with '/' (a pattern without it never matches), but was '" + patterns.get(i) + "'");
            }
            try {
                parsed.add(org.springframework.web.util.pattern.PathPatternParser.defaultInstance.parse(
                        patterns.get(i) == null ? "" : patterns.get(i)));
            } catch (PatternParseException e) {
                throw new InvalidFilterRuleException(
                        property + "[" + i + "]",
                        "'" + patterns.get(i) + "' is not a valid path pattern: " + e.getMessage());
            }
        }
        return List.copyOf(parsed);
    }
}
