package io.github.ratelimit.annotation;

/** Which calls of a {@link RateLimited} method take from the budget. */
public enum CountOn {

    /** Every admitted call, before it runs. */
    CALL,

    /**
     * Only calls that fail: the method threw, or returned (or emitted) an HTTP response with a status of 400 or more.
     * The budget is checked before the call, without taking anything, and taken after a failure.
     */
    FAILURE
}
