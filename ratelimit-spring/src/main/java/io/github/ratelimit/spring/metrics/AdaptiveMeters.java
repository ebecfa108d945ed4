package io.github.ratelimit.spring.metrics;

import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.AdaptivePermit;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The gauges of adaptive concurrency limits, by limit name, made at a limit's first slot: the fleet's limit
 * ({@code ratelimit.concurrency.adaptive.limit}), its calls in flight ({@code ratelimit.concurrency.adaptive.in.flight}),
 * and its latencies ({@code ratelimit.concurrency.adaptive.latency}, {@code kind} {@code noload} or {@code recent}, the
 * last window's mean), each as this instance last heard them from the store: every instance reports the same fleet
 * value, so a dashboard takes their maximum, not their sum. Shed calls are {@code ratelimit.concurrency{outcome=refused}}.
 * A limit keyed by an expression reports its last key's values.
 */
final class AdaptiveMeters {

    /** What one limit's gauges read. */
    static final class Reading {
        volatile double limit = Double.NaN;
        volatile double inFlight = Double.NaN;
        volatile double noLoadSeconds = Double.NaN;
        volatile double recentSeconds = Double.NaN;
    }

    private final MeterRegistry registry;
    private final Map<String, Reading> readings = new ConcurrentHashMap<>();

    AdaptiveMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** A slot taken: the fleet's limit, calls in flight and latencies of that moment. */
    void taken(String name, AdaptivePermit permit) {
        Reading reading = reading(name);
        reading.limit = permit.limit();
        reading.inFlight = permit.inFlight();
        reading.noLoadSeconds = seconds(permit.noLoadLatency());
        reading.recentSeconds = seconds(permit.recentLatency());
    }

    /** A call refused: all the slots of the limit {@code limit} were taken (only for a limit seen adaptive). */
    void refused(String name, int limit) {
        Reading reading = readings.get(name);
        if (reading != null) {
            reading.limit = limit;
            reading.inFlight = limit;
        }
    }

    private Reading reading(String name) {
        Reading reading = readings.get(name);
        return reading != null ? reading : readings.computeIfAbsent(name, this::register);
    }

    private Reading register(String name) {
        Reading reading = new Reading();
        Gauge.builder("ratelimit.concurrency.adaptive.limit", reading, r -> r.limit)
                .description("The fleet's adaptive concurrency limit, as this instance last heard it")
                .tag("limit", name)
                .register(registry);
        Gauge.builder("ratelimit.concurrency.adaptive.in.flight", reading, r -> r.inFlight)
                .description("Calls in flight across the fleet under an adaptive limit, at the last slot taken here")
                .tag("limit", name)
                .register(registry);
        TimeGauge.builder("ratelimit.concurrency.adaptive.latency", reading, TimeUnit.SECONDS, r -> r.noLoadSeconds)
                .description("An adaptive limit's no-load latency (noload) and its last window's mean (recent)")
                .tags("limit", name, "kind", "noload")
                .register(registry);
        TimeGauge.builder("ratelimit.concurrency.adaptive.latency", reading, TimeUnit.SECONDS, r -> r.recentSeconds)
                .description("An adaptive limit's no-load latency (noload) and its last window's mean (recent)")
                .tags("limit", name, "kind", "recent")
                .register(registry);
        return reading;
    }

    private static double seconds(@Nullable Duration latency) {
        return latency == null ? Double.NaN : latency.toNanos() / 1e9;
    }
}
