package io.github.ratelimit.local;

import java.util.function.LongSupplier;

/** Tests only: a {@link LocalRateLimiter} on a clock of the test's (its constructor for a clock is package-private). */
public final class LocalRateLimiters {

    private LocalRateLimiters() {}

    /** A limiter of at most {@code maxEntries} pairs that reads {@code nanoTime} as its monotonic clock. */
    public static LocalRateLimiter onClock(long maxEntries, LongSupplier nanoTime) {
        return new LocalRateLimiter(maxEntries, nanoTime);
    }
}
