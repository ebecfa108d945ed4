package io.github.ratelimit.benchmarks;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RateLimiter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * What metering adds to a decision: a limiter that answers at once (admitting, or refusing with retry advice) and
 * tells its events as the Redis one does, called with no listener and with the starter's metrics listener (Micrometer's
 * simple registry), in alternating rounds of sequential calls; prints each round's nanoseconds per decision and the
 * medians. No Redis: only the listener is measured. Run with {@code --metering} (and {@code --rounds=N},
 * {@code --calls=N}).
 */
final class MeteringCost {

    private MeteringCost() {}

    static void run(int rounds, int calls) {
        RateLimit limit = new RateLimit("hello", Algorithm.SLIDING_WINDOW, 5, Duration.ofSeconds(1));
        LimitRequest request = new LimitRequest(limit, ClientIdentifier.of("ip", "127.0.0.1"), 1, false, false, false);
        List<LimitRequest> requests = List.of(request);
        Decision admitted = new Decision(
                true,
                List.of(new Decision.LimitOutcome(request, true, 3, Duration.ofMillis(700), Duration.ZERO)),
                Instant.now());
        Decision refused = new Decision(
                false,
                List.of(new Decision.LimitOutcome(request, false, 0, Duration.ofMillis(700), Duration.ofMillis(700))),
                Instant.now());
        for (Decision decision : List.of(admitted, refused)) {
            Answering bare = new Answering(decision);
            try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
                context.registerBean(MeterRegistry.class, SimpleMeterRegistry::new);
                context.register(RateLimitMetricsAutoConfiguration.class);
                context.refresh();
                Answering metered = new Answering(decision);
                metered.events().add(context.getBean(RateLimitListener.class));
                List<Double> bareRounds = new ArrayList<>();
                List<Double> meteredRounds = new ArrayList<>();
                for (int round = 0; round < rounds; round++) {
                    bareRounds.add(nanosPerCall(bare, requests, calls));
                    meteredRounds.add(nanosPerCall(metered, requests, calls));
                }
                double bareMedian = median(bareRounds);
                double meteredMedian = median(meteredRounds);
                System.out.printf(
                        "%s: bare %s ns, metered %s ns per decision; medians %.0f and %.0f, metering adds %.0f ns%n",
                        decision.allowed() ? "admitted" : "refused",
                        whole(bareRounds),
                        whole(meteredRounds),
                        bareMedian,
                        meteredMedian,
                        meteredMedian - bareMedian);
            }
        }
    }

    /** Answers at once, telling its events as the Redis limiter does. */
    static final class Answering implements RateLimiter, RateLimitEvents.Source {
        private final RateLimitEvents events = new RateLimitEvents();
        private final Decision decision;

        Answering(Decision decision) {
            this.decision = decision;
        }

        @Override
        public Decision tryAcquire(List<LimitRequest> requests) {
            return RateLimitEvents.observe(events.deciding(requests), () -> decision);
        }

        @Override
        public RateLimitEvents events() {
            return events;
        }
    }

    private static double nanosPerCall(RateLimiter limiter, List<LimitRequest> requests, int calls) {
        long started = System.nanoTime();
        boolean sink = false;
        for (int i = 0; i < calls; i++) {
            sink ^= limiter.tryAcquire(requests).allowed();
        }
        long elapsed = System.nanoTime() - started;
        if (sink && calls < 0) {
            System.out.println(); // keeps the calls from being optimised away
        }
        return elapsed / (double) calls;
    }

    /** The median of the rounds after the first two (warm-up). */
    static double median(List<Double> rounds) {
        double[] kept = rounds.subList(Math.min(2, rounds.size() - 1), rounds.size()).stream()
                .mapToDouble(Double::doubleValue)
                .sorted()
                .toArray();
        return kept[kept.length / 2];
    }

    static String whole(List<Double> rounds) {
        return Arrays.toString(rounds.stream().mapToLong(Math::round).toArray());
    }
}
