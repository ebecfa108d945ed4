package io.github.ratelimit.local;

import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.kit.WaitingContract;

/** Waiting for room on the limiter in memory: one instance, its callers on real threads. */
class WaitingInMemoryTest extends WaitingContract {

    @Override
    protected RateLimiter newInstance() {
        return new LocalRateLimiter(LocalRateLimiter.DEFAULT_MAX_ENTRIES);
    }

    @Override
    protected boolean instancesShareState() {
        return false;
    }
}
