package io.github.ratelimit.core;

import io.github.ratelimit.annotation.Algorithm;
import java.time.Duration;
import java.util.Objects;

/**
 * One limit: at most {@code limit} units per {@code window}, counted by {@code algorithm}, under a name
 * that identifies the budget (limits with the same name, algorithm, limit and window share their counts).
 *
 * <p>A limit of a plan ({@code plan} not null) is one plan's quota in a plan group ({@code name}): its counts belong
 * to the group, algorithm and window alone, not to the plan or the quota, so they survive a change of either (a
 * caller who downgrades keeps what was counted; one who upgrades gets the difference at once).
 *
 * @param plan the plan this quota is the caller's plan's, or null for a limit that is not a plan's
 */
public record RateLimit(String name, Algorithm algorithm, long limit, Duration window, String plan) {

    /** A limit that is not a plan's. */
    public RateLimit(String name, Algorithm algorithm, long limit, Duration window) {
        this(name, algorithm, limit, window, null);
    }

    public RateLimit {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(window, "window");
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
    }

    /** The same limit as one plan's quota in the plan group of this limit's name. */
    public RateLimit forPlan(String plan, long quota) {
        return new RateLimit(name, algorithm, quota, window, plan);
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
