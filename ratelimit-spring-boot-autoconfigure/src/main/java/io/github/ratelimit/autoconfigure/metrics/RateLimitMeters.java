package io.github.ratelimit.autoconfigure.metrics;

import io.github.ratelimit.decision.Fallbacks;
import io.github.ratelimit.redis.RedisGuard;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The meters read from the starter's own counters: fallbacks by policy ({@code ratelimit.fallbacks}), Redis
 * calls that failed or were skipped while the breaker was open ({@code ratelimit.redis.failures},
 * {@code ratelimit.redis.skipped}) and whether it is open ({@code ratelimit.redis.circuit.open}).
 */
final class RateLimitMeters implements MeterBinder {

    private final Fallbacks fallbacks;
    private final RedisGuard guard;

    RateLimitMeters(Fallbacks fallbacks, RedisGuard guard) {
        this.fallbacks = fallbacks;
        this.guard = guard;
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
        if (guard != null) {
            FunctionCounter.builder("ratelimit.redis.failures", guard, RedisGuard::failures)
                    .description("Redis calls that failed or did not answer within the budget")
                    .register(registry);
            FunctionCounter.builder("ratelimit.redis.skipped", guard, RedisGuard::rejectedWhileOpen)
                    .description("Redis calls not made because the circuit breaker was open")
                    .register(registry);
            Gauge.builder("ratelimit.redis.circuit.open", guard, g -> g.isOpen() ? 1 : 0)
                    .description("Whether Redis is being left alone after failures")
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
