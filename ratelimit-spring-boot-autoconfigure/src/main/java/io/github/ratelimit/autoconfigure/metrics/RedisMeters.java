package io.github.ratelimit.autoconfigure.metrics;

import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * The meters of the Redis store: calls that failed or were skipped while the breaker was open
 * ({@code ratelimit.redis.failures}, {@code ratelimit.redis.skipped}), whether it is open
 * ({@code ratelimit.redis.circuit.open}) and the locks this instance holds ({@code ratelimit.locks.held}). Bound only
 * where the Redis module is on the class path.
 */
final class RedisMeters implements MeterBinder {

    private final @Nullable RedisGuard guard;
    private final @Nullable LockManager locks;

    /**
     * @param guard the Redis guard, or null
     * @param locks the lock manager, or null (its gauge is bound when it is the Redis one)
     */
    RedisMeters(@Nullable RedisGuard guard, @Nullable LockManager locks) {
        this.guard = guard;
        this.locks = locks;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
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
        if (locks instanceof RedisLockManager redisLocks) {
            Gauge.builder("ratelimit.locks.held", redisLocks, RedisLockManager::heldHere)
                    .description("Locks this instance holds right now")
                    .register(registry);
        }
    }
}
