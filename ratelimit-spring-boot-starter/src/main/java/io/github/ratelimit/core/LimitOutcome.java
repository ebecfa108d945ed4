package io.github.ratelimit.core;

import java.time.Duration;

/**
 * How one {@link LimitRequest} fared.
 *
 * @param request the request
 * @param allowed whether this limit had room for the request
 * @param remaining units left after this decision (nothing is taken when the whole decision is a rejection)
 * @param resetAfter time until this limit is back to its full quota, if nothing more is taken
 * @param retryAfter when to retry: for a refused request the advice (the earliest time it could succeed, or a later
 *     staggered slot); zero when it was allowed
 * @param adviceCapped whether staggered advice reached the horizon, so that the caller was told the horizon
 */
public record LimitOutcome(
        LimitRequest request,
        boolean allowed,
        long remaining,
        Duration resetAfter,
        Duration retryAfter,
        boolean adviceCapped) {

    /** An outcome whose advice was not capped. */
    public LimitOutcome(
            LimitRequest request, boolean allowed, long remaining, Duration resetAfter, Duration retryAfter) {
        this(request, allowed, remaining, resetAfter, retryAfter, false);
    }
}
