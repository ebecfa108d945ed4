package io.github.ratelimit.core;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.internal.Messages;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One limit: at most {@code limit} units per {@code window}, counted by {@code algorithm}, under a name
 * that identifies the budget (limits with the same name, algorithm, limit and window share their counts).
 *
 * <p>A limit of a plan ({@code plan} not null) is one plan's quota in a plan group ({@code name}): its counts belong
 * to the group, algorithm and window alone, not to the plan or the quota, so they survive a change of either (a
 * caller who downgrades keeps what was counted; one who upgrades gets the difference at once).
 *
 * <p>Three options, each off by default ({@link #of} and the short constructors leave them off; the {@code with...}
 * methods turn them on):
 *
 * <ul>
 *   <li>a calendar {@code period} (a quota per day, ISO week or month in a time zone): the count starts afresh at
 *       each period's start, as the Redis server's clock tells; only with {@link Algorithm#FIXED_WINDOW}, the window
 *       being the longest the period can be (see {@link CalendarPeriod#longest()});
 *   <li>a {@code penalty}: once this limit refuses an identifier, every call of it is refused for that long, on every
 *       instance, then counted afresh;
 *   <li>a {@code share} of the budget below 1: the limit's counts are shared with every limit of the same name and key
 *       (a budget), and a call is admitted only while the shared count stays within this limit's own
 *       {@link #ceiling()}, so that limits with a larger share (critical calls) keep the rest.
 * </ul>
 *
 * @param plan the plan this quota is the caller's plan's, or null for a limit that is not a plan's
 * @param period the calendar period of a quota, or null for a window of {@code window}
 * @param penalty how long an identifier this limit refused is refused by it, {@link Duration#ZERO} for none
 * @param share the share of {@code limit} that calls of this limit may use, above 0 and at most 1
 * @param lease 0 for a limit decided in Redis on every call; above 0 and at most 1 for a leased limit (see
 *     {@link #withLease}): the most one instance's lease holds, as a share of {@code limit}
 */
public record RateLimit(
        String name,
        Algorithm algorithm,
        long limit,
        Duration window,
        @Nullable String plan,
        @Nullable CalendarPeriod period,
        Duration penalty,
        double share,
        double lease) {

    /** A limit that is not a plan's. */
    public RateLimit(String name, Algorithm algorithm, long limit, Duration window) {
        this(name, algorithm, limit, window, null);
    }

    /** A limit without a calendar period, penalty or share. */
    public RateLimit(String name, Algorithm algorithm, long limit, Duration window, @Nullable String plan) {
        this(name, algorithm, limit, window, plan, null, Duration.ZERO, 1.0, 0);
    }

    /** A limit that is not leased. */
    public RateLimit(
            String name,
            Algorithm algorithm,
            long limit,
            Duration window,
            @Nullable String plan,
            @Nullable CalendarPeriod period,
            Duration penalty,
            double share) {
        this(name, algorithm, limit, window, plan, period, penalty, share, 0);
    }

    public RateLimit {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(penalty, "penalty");
        if (!Messages.isName(name)) {
            throw new IllegalArgumentException(Messages.badName("limit name", name));
        }
        if (limit < 1) {
            throw new IllegalArgumentException(Messages.atLeast("limit", 1, limit) + " (limit '" + name + "')");
        }
        if (window.isNegative() || window.toMillis() < 1 || !window.equals(Duration.ofMillis(window.toMillis()))) {
            throw new IllegalArgumentException("window must be a whole number of milliseconds, at least 1 ms, but was "
                    + window + " (limit '" + name + "')");
        }
        if (plan != null && !Messages.isName(plan)) {
            throw new IllegalArgumentException(Messages.badName("plan name", plan) + " (plan group '" + name + "')");
        }
        if (plan != null && algorithm == Algorithm.TOKEN_BUCKET) {
            throw new IllegalArgumentException("plan '" + plan + "' of group '" + name + "' uses TOKEN_BUCKET, whose"
                    + " state cannot carry its count across a change of quota; use SLIDING_WINDOW or FIXED_WINDOW");
        }
        if (period != null && algorithm != Algorithm.FIXED_WINDOW) {
            throw new IllegalArgumentException("limit '" + name + "' counts per calendar " + period + " with "
                    + algorithm + "; a calendar period is a fixed count per period: use FIXED_WINDOW");
        }
        if (period != null) {
            window = period.longest();
        }
        if (penalty.isNegative() || !penalty.equals(Duration.ofMillis(penalty.toMillis()))) {
            throw new IllegalArgumentException("penalty must be a whole number of milliseconds, at least 0, but was "
                    + penalty + " (limit '" + name + "')");
        }
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException(
                    "share must be above 0 and at most 1, but was " + share + " (limit '" + name + "')");
        }
        if (ceilingOf(limit, share) < 1) {
            throw new IllegalArgumentException("share " + share + " of limit " + limit
                    + " leaves less than one unit (limit '" + name + "'); raise the share or the limit");
        }
        if (!(lease >= 0 && lease <= 1)) {
            throw new IllegalArgumentException("lease must be 0 (not leased), or above 0 and at most 1, but was "
                    + lease + " (limit '" + name + "')");
        }
        if (lease > 0) {
            String without = algorithm != Algorithm.FIXED_WINDOW
                    ? "algorithm " + algorithm + " (a leased limit counts per fixed window: use FIXED_WINDOW)"
                    : plan != null
                            ? "a plan"
                            : period != null
                                    ? "a calendar period"
                                    : !penalty.isZero() ? "a penalty" : share < 1 ? "a share" : null;
            if (without != null) {
                throw new IllegalArgumentException("limit '" + name + "' is leased (lease " + lease
                        + ") and cannot have " + without + "; leave the lease out to decide it in Redis on every call");
            }
        }
    }

    /** The same limit as one plan's quota in the plan group of this limit's name. */
    public RateLimit forPlan(String plan, long quota) {
        return new RateLimit(name, algorithm, quota, window, plan, period, penalty, share, lease);
    }

    /** The same limit with another quota (and window, unless it counts per calendar period), its options kept. */
    public RateLimit withQuota(long quota, Duration window) {
        return new RateLimit(name, algorithm, quota, window, plan, period, penalty, share, lease);
    }

    /** The same limit counted per calendar period: a {@link Algorithm#FIXED_WINDOW} quota per day, week or month. */
    public RateLimit inCalendar(CalendarPeriod period) {
        Objects.requireNonNull(period, "period");
        return new RateLimit(name, algorithm, limit, period.longest(), plan, period, penalty, share, lease);
    }

    /** The same limit with a penalty ({@link Duration#ZERO}: none). */
    public RateLimit withPenalty(Duration penalty) {
        return new RateLimit(name, algorithm, limit, window, plan, period, penalty, share, lease);
    }

    /** The same limit, allowed {@code share} of its budget (1: all of it). */
    public RateLimit withShare(double share) {
        return new RateLimit(name, algorithm, limit, window, plan, period, penalty, share, lease);
    }

    /**
     * What calls of this limit may use of its budget: {@code limit} times {@code share}, rounded down; the limit itself
     * unless a share is set. What a caller is told (the RateLimit fields) and what a cost may be at most.
     */
    public long ceiling() {
        return share == 1.0 ? limit : ceilingOf(limit, share);
    }

    private static long ceilingOf(long limit, double share) {
        return (long) Math.floor(limit * share + 1e-9);
    }

    /**
     * The same limit, leased: each instance takes permits from Redis in leases of at most {@code lease} times the
     * limit (one script call each), decides from its lease in the JVM, and asks again when it is spent. A lease holds
     * permits of one fixed window of the Redis server's clock and is spent only before that window ends (the instance
     * times it from before it asked), so a window never admits more than the limit across the fleet, whatever
     * instances die or lose Redis. What a window may admit less: the permits left in leases at its end, at most
     * {@code lease} times the limit per instance. 0: not leased. Only a {@link Algorithm#FIXED_WINDOW} limit without
     * a plan, period, penalty or share can be leased.
     */
    public RateLimit withLease(double lease) {
        return new RateLimit(name, algorithm, limit, window, plan, period, penalty, share, lease);
    }

    /** Whether this limit is leased ({@link #withLease}). */
    public boolean leased() {
        return lease > 0;
    }

    /** The most one lease may hold: {@code lease} times the limit, rounded down, at least 1; 0 when not leased. */
    public long leaseCeiling() {
        return lease == 0 ? 0 : Math.max(1, (long) Math.floor(limit * lease + 1e-9));
    }

    /** Shorthand for a window given in milliseconds. */
    public static RateLimit of(String name, Algorithm algorithm, long limit, long windowMs) {
        if (windowMs < 1) {
            throw new IllegalArgumentException(
                    Messages.atLeast("windowMs", 1, windowMs) + " (limit '" + Messages.printable(name) + "')");
        }
        return new RateLimit(name, algorithm, limit, Duration.ofMillis(windowMs));
    }

    /** The window in milliseconds. */
    public long windowMs() {
        return window.toMillis();
    }
}
