package io.github.ratelimit.autoconfigure.metrics;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.decision.Fallbacks;
import io.github.ratelimit.spring.aop.AdvisorDeclarations;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.metrics.RateLimitMeters;
import io.github.ratelimit.spring.metrics.RateLimitMetricsListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer meters. What the limiter does is counted by a listener of its events ({@code ratelimit.decisions},
 * {@code ratelimit.redis.duration}, {@code ratelimit.retry.advice}, {@code ratelimit.tokens},
 * {@code ratelimit.locks.acquisitions}, {@code ratelimit.locks.wait}, {@code ratelimit.locks.lost}, {@code ratelimit.concurrency},
 * {@code ratelimit.operator.changes}); the rest is read from the starter's own counters ({@code ratelimit.fallbacks},
 * {@code ratelimit.redis.failures}, {@code ratelimit.redis.skipped}, {@code ratelimit.redis.circuit.open},
 * {@code ratelimit.plans.fallbacks}, the gauge {@code ratelimit.locks.held}); the outbound clients' auto-configuration registers {@code ratelimit.client.pauses}. docs/reference.md lists every meter.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
public final class RateLimitMetricsAutoConfiguration {

    /** The Redis store's meters, where the Redis module is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.github.ratelimit.redis.RedisGuard")
    static final class Redis {

        @Bean
        SmartInitializingSingleton rateLimitRedisMeters(
                ObjectProvider<io.github.ratelimit.redis.RedisGuard> guard,
                ObjectProvider<MeterRegistry> registries,
                ObjectProvider<LockManager> locks) {
            return () -> {
                MeterBinder binder = new RedisMeters(guard.getIfAvailable(), locks.getIfUnique());
                registries.orderedStream().forEach(binder::bindTo);
            };
        }
    }

    /** Told what the limiter does; counts and times it in the application's registry. */
    @Bean
    RateLimitListener rateLimitMetricsListener(ObjectProvider<MeterRegistry> registry) {
        MeterRegistry meters = registry.getIfAvailable();
        return meters == null ? new RateLimitListener() {} : new RateLimitMetricsListener(meters);
    }

    /** Binds the meters to every registry once the context is ready (with or without Boot's metrics support). */
    @Bean
    SmartInitializingSingleton rateLimitMeters(
            ObjectProvider<Fallbacks> fallbacks,
            ObjectProvider<MeterRegistry> registries,
            ObjectProvider<Plans> plans,
            ObjectProvider<RateLimitListener> listeners,
            ObjectProvider<DeclaredLimits> declared,
            ObjectProvider<AdvisorDeclarations> methods) {
        return RateLimitMeters.atStartup(fallbacks, registries, plans, listeners, declared, methods);
    }
}
