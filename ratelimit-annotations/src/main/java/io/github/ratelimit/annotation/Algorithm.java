package io.github.ratelimit.annotation;

/**
 * How a limit counts. Every algorithm takes its time from the Redis server, never from the application.
 */
public enum Algorithm {

    /**
     * Never more than {@code limit} admitted in <em>any</em> interval of {@code windowMs}, exactly (to the
     * millisecond of the Redis clock). Stores the last {@code limit} admission times in one compact string;
     * each decision reads and writes a constant number of entries.
     */
    SLIDING_WINDOW,

    /**
     * At most {@code limit} per window, where a window starts at the first admitted call and lasts
     * {@code windowMs}. The cheapest: one counter with an expiry. Allows up to {@code 2 * limit} around a
     * window boundary.
     */
    FIXED_WINDOW,

    /**
     * A token bucket as the generic cell rate algorithm (GCRA): a steady rate of {@code limit} per
     * {@code windowMs} with bursts of up to {@code limit}. One timestamp per key.
     */
    TOKEN_BUCKET
}
