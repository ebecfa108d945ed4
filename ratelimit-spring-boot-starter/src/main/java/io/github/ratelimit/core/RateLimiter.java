package io.github.ratelimit.core;

import java.util.List;

/** Decides whether a call may proceed. Implementations must decide all requests of one call atomically. */
public interface RateLimiter {

    /**
     * Takes every request's cost if every limit has room, else takes nothing.
     *
     * @param requests at least one; requests for the same limit and identifier are counted once
     * @return the decision, never null
     */
    Decision tryAcquire(List<LimitRequest> requests);
}
