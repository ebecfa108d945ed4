package io.github.ratelimit.spring.metrics;

import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.decision.Fallbacks;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.internal.MethodDeclarations;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The meters read from the decision flow's own counters: fallbacks by policy ({@code ratelimit.fallbacks}), units
 * charged, calls refused for a block, charges lost. Redis's own meters are the auto-configuration's ({@code RedisMeters}), so that the engine knows no store.
 */
public final class RateLimitMeters implements MeterBinder {

    private final @Nullable Fallbacks fallbacks;

    public RateLimitMeters(@Nullable Fallbacks fallbacks) {
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

    /**
     * Binds the meters to every registry once the context is ready, with every declared limit's counters at zero from
     * the start, and counts plan fallbacks ({@code ratelimit.plans.fallbacks}).
     *
     * @param fallbacks the decision flow's fallbacks, if any
     * @param registries the registries to bind to
     * @param plans the plan groups, if any
     * @param listeners the listeners, among which the metrics listener
     * @param declared every source of declared limits
     * @param methods what the annotations declare
     * @return what binds them once every singleton exists
     */
    public static SmartInitializingSingleton atStartup(
            ObjectProvider<Fallbacks> fallbacks,
            ObjectProvider<MeterRegistry> registries,
            ObjectProvider<Plans> plans,
            ObjectProvider<RateLimitListener> listeners,
            ObjectProvider<DeclaredLimits> declared,
            ObjectProvider<? extends MethodDeclarations> methods) {
        return () -> {
            MeterBinder binder = new RateLimitMeters(fallbacks.getIfAvailable());
            registries.orderedStream().forEach(binder::bindTo);
            // every declared limit's decision and capped-advice (and concurrency slot) counters at zero from the
            // start: a rate or an alert works from the first event, not from the second
            listeners
                    .orderedStream()
                    .filter(RateLimitMetricsListener.class::isInstance)
                    .map(RateLimitMetricsListener.class::cast)
                    .forEach(metrics -> {
                        declared.orderedStream()
                                .flatMap(source -> source.declaredLimits().stream())
                                .forEach(limit -> metrics.declared(limit.limit()));
                        methods.orderedStream()
                                .flatMap(source -> source.concurrencyLimitNames().stream())
                                .forEach(metrics::declaredConcurrencyLimit);
                    });
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
