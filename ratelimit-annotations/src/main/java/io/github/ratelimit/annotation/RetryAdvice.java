package io.github.ratelimit.annotation;

/** What a refused caller is told about when to retry ({@code Retry-After} and the {@code RateLimit} field's t). */
public enum RetryAdvice {

    /** The application-wide choice, {@code ratelimit.retry-advice.default} (itself {@link #EARLIEST} by default). */
    DEFAULT,

    /**
     * The earliest time this call could be admitted. Every caller refused at the same moment is told the same
     * time, so callers that all honour it come back together and most are refused again.
     */
    EARLIEST,

    /**
     * Staggered: each refused caller of a limit and identifier is given its own slot, one {@code window / limit}
     * (times its cost) after the advice last handed out, and never earlier than the earliest time it could be
     * admitted, nor later than the horizon ({@code ratelimit.retry-advice.horizon-windows}). Callers that honour it
     * come back spread out instead of in a storm.
     */
    STAGGERED
}
