package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.core.ConcurrencyLimiter;
import io.github.ratelimit.core.LockManager;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.SingleUseTokens;
import io.github.ratelimit.decision.Fallbacks;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/** Wraps the rate limiter, the tokens, the lock manager and the concurrency limiter so that their use is measured. */
final class MeteringPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<MeterRegistry> registry;

    public MeteringPostProcessor(ObjectProvider<MeterRegistry> registry) {
        this.registry = registry;
    }

    /** The meters read from the starter's own counters. */
    public static io.micrometer.core.instrument.binder.MeterBinder binder(
            Fallbacks fallbacks, io.github.ratelimit.redis.RedisGuard guard) {
        return new RateLimitMeters(fallbacks, guard);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof RateLimiter
                || bean instanceof SingleUseTokens
                || bean instanceof LockManager
                || bean instanceof ConcurrencyLimiter)) {
            return bean;
        }
        MeterRegistry meters = registry.getIfAvailable();
        if (meters == null) {
            return bean;
        }
        if (bean instanceof RateLimiter limiter && !(bean instanceof MeteredRateLimiter)) {
            return new MeteredRateLimiter(limiter, meters);
        }
        if (bean instanceof SingleUseTokens tokens && !(bean instanceof MeteredSingleUseTokens)) {
            return new MeteredSingleUseTokens(tokens, meters);
        }
        if (bean instanceof LockManager locks && !(bean instanceof MeteredLockManager)) {
            return new MeteredLockManager(locks, meters);
        }
        if (bean instanceof ConcurrencyLimiter limiter && !(bean instanceof MeteredConcurrencyLimiter)) {
            return new MeteredConcurrencyLimiter(limiter, meters);
        }
        return bean;
    }
}
