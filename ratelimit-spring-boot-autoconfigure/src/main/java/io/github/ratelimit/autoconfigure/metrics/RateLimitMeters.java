package io.github.ratelimit.autoconfigure.metrics;

import io.github.ratelimit.decision.Fallbacks;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * The meters read from the decision flow's own counters: fallbacks by policy ({@code ratelimit.fallbacks}), units
 * charged, calls refused for a block, charges lost. Redis's own meters are {@link RedisMeters}'.
 */
final class RateLimitMeters implements MeterBinder {

    private final @Nullable Fallbacks fallbacks;

    RateLimitMeters(@Nullable Fallbacks fallbacks) {
        this.fallbacks = fallbacks;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        if (fallbacks != null) {
            FunctionCounter.builder("ratelimit.fallbacks", fallbacks, Fallbacks::failedOpen)
                    .description("Rate limit decisions made without Redis")
                    .tag("policy", "open")
                    .register(registry);
            FunctionCounter.builder("ratelimit.fallbacks", fallbacks, Fallbacks::decidedLocally)
                    .description("Rate limit decisions made without Redis")
                    .tag("policy", "local")
                    .register(registry);
            FunctionCounter.builder("ratelimit.fallbacks", fallbacks, Fallbacks::failedClosed)
                    .description("Rate limit decisions made without Redis")
                    .tag("policy", "closed")
                    .register(registry);
            FunctionCounter.builder("ratelimit.charged", fallbacks, Fallbacks::chargedUnits)
                    .description("Units charged to rate limits after the calls that used them")
                    .baseUnit("units")
                    .register(registry);
            FunctionCounter.builder("ratelimit.blocks.refused", fallbacks, Fallbacks::blockedCalls)
                    .description("Calls refused because an operator blocked their client")
                    .register(registry);
            FunctionCounter.builder("ratelimit.charges.lost", fallbacks, Fallbacks::chargesLost)
                    .description("Charges after a call that Redis could not take")
                    .register(registry);
        }
    }

    static Timer redisTimer(MeterRegistry registry, String operation) {
        return Timer.builder("ratelimit.redis.duration")
                .description("Time a call waited for Redis, a coalesced decision's time in the queue included")
                .tag("operation", operation)
                .publishPercentileHistogram(false)
                .register(registry);
    }
}
