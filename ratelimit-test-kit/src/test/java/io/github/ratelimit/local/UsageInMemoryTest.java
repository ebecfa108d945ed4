package io.github.ratelimit.local;

import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.test.kit.UsageContract;

/** The usage, credit and reset promises of the kit on the limiter in memory ({@code ratelimit.store=memory}). */
class UsageInMemoryTest extends UsageContract {

    @Override
    protected RateLimiter newInstance() {
        return new LocalRateLimiter(LocalRateLimiter.DEFAULT_MAX_ENTRIES);
    }

    @Override
    protected boolean instancesShareState() {
        return false;
    }
}
