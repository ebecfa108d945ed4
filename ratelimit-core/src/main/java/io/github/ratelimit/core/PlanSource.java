package io.github.ratelimit.core;

import io.github.ratelimit.annotation.Algorithm;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a caller's plan, and any limits of its own, come from at run time: for example a database of API keys and
 * contracts, cached as the application likes. Asked on every call of a plan-limited method or rule, so a change applies
 * from the next call, without a restart. Declare one as a bean to replace the starter's, which reads
 * {@code ratelimit.plans.customers}.
 *
 * <p>Never trusted blindly: a plan that does not exist in the group, limits that are not valid, or an exception thrown
 * here make the caller's call use the group's default plan (logged once, counted in {@code ratelimit.plans.fallbacks}),
 * never an unlimited caller.
 */
public interface PlanSource {

    /**
     * The customer's plan in a plan group, such as {@code "pro"}; null when unknown, and the group's default plan
     * applies.
     *
     * @param group the plan group, as named by {@code @RateLimited(plans = ...)} or a rule's {@code plans}
     * @param customer the caller's identifier value (the key's value, such as the API key)
     */
    @Nullable
    String planOf(String group, @Nullable String customer);

    /**
     * Limits that replace the plan's own for this customer (a negotiated contract), or null for the plan's. The
     * windows and algorithms should be the plan's: counts belong to the group, window and algorithm, so a quota that
     * changes keeps what was counted, while a new window starts a new count.
     */
    default @Nullable List<Quota> limitsOf(String group, String plan, @Nullable String customer) {
        return null;
    }

    /**
     * One limit of a plan: {@code limit} units per {@code window}, counted by {@code algorithm} (sliding or fixed window:
     * a token bucket cannot carry its count across a change of quota), or per calendar {@code period} (then the window
     * is left out), with an optional penalty and share of the budget (see {@link RateLimit}).
     *
     * @param period the calendar period of a quota, or null
     * @param penalty how long a refused caller stays refused, {@link Duration#ZERO} for none
     * @param share the share of the budget its calls may use, above 0 and at most 1
     */
    public record Quota(
            long limit,
            @Nullable Duration window,
            Algorithm algorithm,
            @Nullable CalendarPeriod period,
            Duration penalty,
            double share) {

        public Quota {
            Objects.requireNonNull(algorithm, "algorithm");
            Objects.requireNonNull(penalty, "penalty");
            if (period == null) {
                Objects.requireNonNull(window, "window");
            }
        }

        /** A quota per window, without a penalty or share. */
        public Quota(long limit, Duration window, Algorithm algorithm) {
            this(limit, window, algorithm, null, Duration.ZERO, 1.0);
        }

        /** A sliding-window quota. */
        public static Quota of(long limit, Duration window) {
            return new Quota(limit, window, Algorithm.SLIDING_WINDOW);
        }

        /** A quota per calendar period: {@code Quota.perPeriod(1_000, CalendarPeriod.of(MONTH))}. */
        public static Quota perPeriod(long limit, CalendarPeriod period) {
            return new Quota(limit, period.longest(), Algorithm.FIXED_WINDOW, period, Duration.ZERO, 1.0);
        }

        /**
         * This quota as a plan's limit in a group; throws {@link IllegalArgumentException} naming what is wrong (a limit
         * below 1, a window below 1 ms, a token bucket).
         */
        public RateLimit in(String group, String plan) {
            if (period != null) {
                return new RateLimit(
                        group, Algorithm.FIXED_WINDOW, limit, period.longest(), plan, period, penalty, share);
            }
            return new RateLimit(
                    group, algorithm, limit, Objects.requireNonNull(window, "window"), plan, null, penalty, share);
        }
    }
}
