package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.decision.Fallbacks;
import io.github.ratelimit.redis.RedisGuard;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters: {@code ratelimit.decisions} (limit, outcome), {@code ratelimit.fallbacks} (policy),
 * {@code ratelimit.redis.duration} (operation), {@code ratelimit.redis.failures}, {@code ratelimit.redis.skipped},
 * {@code ratelimit.redis.circuit.open}, {@code ratelimit.tokens} (operation, outcome),
 * {@code ratelimit.locks.acquisitions} (outcome), {@code ratelimit.locks.wait} and {@code ratelimit.plans.fallbacks}
 * (group, reason).
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
public final class RateLimitMetricsAutoConfiguration {

    /** What each {@code ratelimit.operator.changes} action counts. */
    private static final Map<String, ToDoubleFunction<RateLimitsEndpoint>> OPERATOR_CHANGES = Map.of(
            "block", RateLimitsEndpoint::blocksSet,
            "lift", RateLimitsEndpoint::blocksLifted,
            "override", RateLimitsEndpoint::overridesSet,
            "override_removed", RateLimitsEndpoint::overridesRemoved);

    @Bean
    static MeteringPostProcessor rateLimitMeteringPostProcessor(ObjectProvider<MeterRegistry> registry) {
        return new MeteringPostProcessor(registry);
    }

    /** Binds the meters to every registry once the context is ready (with or without Boot's metrics support). */
    @Bean
    SmartInitializingSingleton rateLimitMeters(
            ObjectProvider<Fallbacks> fallbacks,
            ObjectProvider<RedisGuard> guard,
            ObjectProvider<MeterRegistry> registries,
            ObjectProvider<Plans> plans,
            ObjectProvider<OutboundLimits> outbound,
            ObjectProvider<RateLimitsEndpoint> endpoint) {
        return () -> {
            MeterBinder binder = MeteringPostProcessor.binder(fallbacks.getIfAvailable(), guard.getIfAvailable());
            registries.orderedStream().forEach(binder::bindTo);
            RateLimitsEndpoint operator = endpoint.getIfAvailable();
            if (operator != null) {
                registries
                        .orderedStream()
                        .forEach(registry -> OPERATOR_CHANGES.forEach((action, count) -> FunctionCounter.builder(
                                        "ratelimit.operator.changes", operator, count)
                                .description("Changes operators made through the ratelimits endpoint")
                                .tag("action", action)
                                .register(registry)));
            }
            OutboundLimits clients = outbound.getIfAvailable();
            if (clients != null && !clients.isEmpty()) {
                registries.orderedStream().forEach(registry -> FunctionCounter.builder(
                                "ratelimit.client.pauses", clients, OutboundLimits::pauses)
                        .description("Outbound rules paused by this instance after an upstream's Retry-After")
                        .register(registry));
            }
            Plans groups = plans.getIfAvailable();
            if (groups != null) {
                List<MeterRegistry> all = registries.orderedStream().toList();
                groups.onFallback((group, reason) -> all.forEach(registry -> Counter.builder(
                                "ratelimit.plans.fallbacks")
                        .description("Calls given their plan group's default plan because theirs could not be used")
                        .tag("group", group)
                        .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                        .register(registry)
                        .increment()));
            }
        };
    }
}
