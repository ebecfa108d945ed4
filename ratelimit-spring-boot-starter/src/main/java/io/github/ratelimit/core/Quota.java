package io.github.ratelimit.core;

import io.github.ratelimit.annotation.Algorithm;
import java.time.Duration;
import java.util.Objects;

/**
 * One limit of a plan: {@code limit} units per {@code window}, counted by {@code algorithm} (sliding or fixed window:
 * a token bucket cannot carry its count across a change of quota).
 */
public record Quota(long limit, Duration window, Algorithm algorithm) {

    public Quota {
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(algorithm, "algorithm");
    }

    /** A sliding-window quota. */
    public static Quota of(long limit, Duration window) {
        return new Quota(limit, window, Algorithm.SLIDING_WINDOW);
    }

    /**
     * This quota as a plan's limit in a group; throws {@link IllegalArgumentException} naming what is wrong (a limit
     * below 1, a window below 1 ms, a token bucket).
     */
    public RateLimit in(String group, String plan) {
        return new RateLimit(group, algorithm, limit, window, plan);
    }
}
