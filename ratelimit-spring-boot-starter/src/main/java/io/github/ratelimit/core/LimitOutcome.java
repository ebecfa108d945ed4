package io.github.ratelimit.core;

import java.time.Duration;

/**
 * How one {@link LimitRequest} fared.
 *
 * @param request the request
 * @param allowed whether this limit had room for the request
 * @param remaining units left after this decision (nothing is taken when the whole decision is a rejection)
 * @param resetAfter time until this limit is back to its full quota, if nothing more is taken
 * @param retryAfter time until the same request can succeed, zero when it was allowed
 */
public record LimitOutcome(
        LimitRequest request, boolean allowed, long remaining, Duration resetAfter, Duration retryAfter) {}
