package io.github.ratelimit.local;

import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.kit.RateLimiterContract;

/**
 * The rate limiter's test kit on the limiter in memory, which decides while Redis cannot. Each instance counts in its
 * own memory, so the promises are checked on one instance: exact under real threads, all or nothing, a refused call
 * takes nothing, retry advice never too early. Across instances it promises only each instance's share (see the
 * README's failure semantics).
 */
class TestKitInMemoryTest extends RateLimiterContract {

    @Override
    protected RateLimiter newInstance() {
        return new LocalRateLimiter(LocalRateLimiter.DEFAULT_MAX_ENTRIES);
    }

    @Override
    protected boolean instancesShareState() {
        return false;
    }
}
