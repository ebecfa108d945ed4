package io.github.ratelimit.spring.definition;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.annotation.CountOn;
import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.annotation.RetryAdvice;
import io.github.ratelimit.core.CalendarPeriod;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;

/**
 * One rule of the path-rule filters (servlet and WebFlux), exactly as bound from {@code ratelimit.filter.rules[i]}; checked and compiled once
 * when the filter is created (an invalid value fails the start naming the property).
 *
 * @param name the budget's name (letters, digits, {@code ._:/-}); null for {@code rule-<index>}
 * @param paths {@code PathPattern}s the rule applies to, each starting with {@code /}; a single value binds as a
 *     list of one
 * @param methods HTTP methods it applies to; empty for all
 * @param limits one or more limits, all decided together
 * @param key who is limited: {@code ip}, {@code principal}, {@code client} (principal, else IP),
 *     {@code header:<Name>}, or {@code spel:<expression>} over {@code #request}, {@code #ip},
 *     {@code #principal}, {@code #client}; {@code client} when left out
 * @param missingKey what to do when the key is absent (no principal, no header, a blank or over-long value)
 * @param cost units each request takes
 * @param order rules are listed in headers by order, then position
 * @param shadow counted and reported, never refusing
 * @param perPath whether each concrete path gets its own count instead of sharing the rule's
 * @param failureMode what requests meet when Redis cannot decide: {@code local} (the instance's share of the limit,
 *     in memory), {@code open} (let through), {@code closed} (503); {@code default}: {@code ratelimit.failure-mode}
 * @param retryAdvice what a refused client is told about when to retry: earliest, staggered, or the default
 * @param plans a plan group of {@code ratelimit.plans.groups} whose limits apply instead of {@code limits}: the
 *     caller's plan's, the customer being the key's value
 * @param plan a SpEL expression for the caller's plan (over {@code #request}, {@code #ip}, {@code #principal},
 *     {@code #client}); null to ask the plan source
 * @param countOn which requests take from the budget: every admitted one ({@code call}), or only those answered with
 *     a status of 400 or more or failing with an exception ({@code failure}; checked before, taken after)
 * @param maxWait ({@code wait}) how long a refused request may wait for room before it is refused (such as 5s); none by default
 * @param concurrency a limit of the rule's requests in flight across every instance, fixed or adaptive, one for the
 *     rule whoever calls; none by default (servlet and WebFlux path rules only)
 */
public record FilterRuleSpec(
        String name,
        List<String> paths,
        List<String> methods,
        List<LimitSpec> limits,
        String key,
        @DefaultValue("reject") MissingKey missingKey,
        @DefaultValue("1") long cost,
        int order,
        boolean shadow,
        boolean perPath,
        @DefaultValue("default") FailureMode failureMode,
        @DefaultValue("default") RetryAdvice retryAdvice,
        String plans,
        String plan,
        @DefaultValue("call") CountOn countOn,
        @Name("wait") Duration maxWait,
        @Nullable ConcurrencySpec concurrency) {

    /** As properties bind it. */
    @ConstructorBinding
    public FilterRuleSpec {}

    /** A rule without a concurrency limit. */
    public FilterRuleSpec(
            String name,
            List<String> paths,
            List<String> methods,
            List<LimitSpec> limits,
            String key,
            MissingKey missingKey,
            long cost,
            int order,
            boolean shadow,
            boolean perPath,
            FailureMode failureMode,
            RetryAdvice retryAdvice,
            String plans,
            String plan,
            CountOn countOn,
            Duration maxWait) {
        this(
                name,
                paths,
                methods,
                limits,
                key,
                missingKey,
                cost,
                order,
                shadow,
                perPath,
                failureMode,
                retryAdvice,
                plans,
                plan,
                countOn,
                maxWait,
                null);
    }

    /** This rule with other paths: for an integration whose patterns are not request paths (gRPC methods). */
    public FilterRuleSpec withPaths(List<String> paths) {
        return new FilterRuleSpec(
                name,
                paths,
                methods,
                limits,
                key,
                missingKey,
                cost,
                order,
                shadow,
                perPath,
                failureMode,
                retryAdvice,
                plans,
                plan,
                countOn,
                maxWait,
                concurrency);
    }

    /**
     * One limit of a rule.
     *
     * @param limit units admitted per window, at least 1
     * @param window the window, such as 1s, 1m or 1h; at least 1 ms; left out with {@code period}
     * @param algorithm how the limit counts
     * @param period a calendar period instead of a window: {@code day}, {@code week} (ISO, from Monday) or
     *     {@code month}, counted as a fixed number per period from the zone's midnight
     * @param zone the time zone of {@code period}, such as {@code Europe/Berlin}; UTC when left out
     * @param penalty how long a client this limit refused stays refused by it, on every instance (such as 15m); none
     *     when left out
     * @param share the share of the budget (the limits of the same name and key) that requests of this limit may use,
     *     above 0 and at most 1 (such as 0.8 for non-critical paths); 1 when left out
     * @param lease for one limit of the whole fleet that one Redis key could not decide fast enough: the most one
     *     instance's lease of permits holds, as a share of the limit (above 0 and at most 1, such as 0.1); the limit is
     *     then decided in the JVM from leases taken from Redis, and never admits more than it per window (only with
     *     {@code algorithm: fixed-window}); decided in Redis on every request when left out
     */
    public record LimitSpec(
            long limit,
            Duration window,
            @DefaultValue("sliding-window") Algorithm algorithm,
            @Nullable String period,
            @Nullable String zone,
            @Nullable Duration penalty,
            @Nullable Double share,
            @Nullable Double lease) {

        /** As properties bind it. */
        @ConstructorBinding
        public LimitSpec {}

        /** A limit per window without options. */
        public LimitSpec(long limit, Duration window, Algorithm algorithm) {
            this(limit, window, algorithm, null, null, null, null, null);
        }

        /** The calendar period, or null; throws {@link IllegalArgumentException} naming what is wrong. */
        public @Nullable CalendarPeriod calendarPeriod() {
            return CalendarPeriod.parseIfGiven(period, zone);
        }
    }

    /** What a rule does when its key is absent from a request. */
    public enum MissingKey {
        /** Answer 400 with a problem saying which key is missing. */
        REJECT,
        /** Count the request against the client's IP address instead (a separate counter). */
        IP
    }
}
