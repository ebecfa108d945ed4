package io.github.ratelimit.annotation;

/**
 * What a rate limit does while Redis cannot decide in time (down, frozen, out of memory, the circuit breaker open).
 * Single-use tokens and locks never decide without Redis: they answer 503 whatever the mode.
 */
public enum FailureMode {

    /** The application-wide mode, {@code ratelimit.failure-mode} ({@link #LOCAL} unless set). */
    DEFAULT,

    /**
     * Each instance enforces the limit in its own memory, divided by the number of live instances (each instance
     * announces itself in Redis while Redis answers, and keeps the last count it saw). The answers are the usual ones
     * (429 with the local quota in the RateLimit fields). What was counted locally is not carried over to Redis when it
     * answers again. The total across instances is exact only while the instance count is right.
     */
    LOCAL,

    /** The call goes through unchecked (fail-open); the fallback is logged and counted. */
    OPEN,

    /** The call is refused with 503 and {@code Retry-After} (fail-closed). */
    CLOSED
}
