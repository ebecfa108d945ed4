package io.github.ratelimit.test.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.AdaptivePermit;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The promises of an {@link AdaptiveConcurrencyLimiter}, for any store: extend it, make the limiter in
 * {@link #newInstance()}. Both instances drive a dependency whose capacity {@code C} the limit is not told
 * ({@link HiddenCapacity}: {@code C} calls at once at latency {@code L0}, the rest queued) with open-loop load of three
 * times its capacity, on real threads; the limit must find the capacity within {@link #K} windows and stay there,
 * follow it when it halves and when it comes back, keep the goodput and the latency, refuse the excess at once, never
 * admit past itself, never creep up through a long incident or on drops, and get a lost instance's slots back within
 * their lease. Each test prints the limit window by window.
 */
public abstract class AdaptiveConcurrencyLimiterContract extends TwoInstances<AdaptiveConcurrencyLimiter> {

    /** The dependency's capacity. */
    static final int C = 20;

    static final Duration L0 = Duration.ofMillis(25);

    static final Duration WINDOW = Duration.ofMillis(250);

    /** Windows within which the limit must be within [0.8 C, 1.3 C] after a start or a step. */
    static final int K = 20;

    /** The windows each phase runs: K to settle, and then some in which it must stay. */
    static final int PHASE = K + 8;

    static final double TOLERANCE = 1.5;

    static final AdaptiveSettings SETTINGS = new AdaptiveSettings(1, 4 * C, 2, TOLERANCE, WINDOW);

    static final Duration LEASE = Duration.ofSeconds(2);

    /** Arrivals a second: three times what the dependency completes. */
    static final int LOAD = (int) (3 * C * 1000 / L0.toMillis());

    private int instances() {
        return instancesShareState() ? 2 : 1;
    }

    @Test
    void findsTheHiddenCapacityFollowsItsStepsAndKeepsGoodputAndLatency() throws Exception {
        HiddenCapacity dependency = new HiddenCapacity(C, L0);
        try (OpenLoad load = new OpenLoad(this::instance, instances(), dependency, fresh("dependency"), SETTINGS, LEASE)
                .start(LOAD)) {
            long start = System.nanoTime();
            List<Integer> starting = phase(load, start);
            int settled = settledWithin(starting, C);
            // goodput and latency from the first window after which the limit never left the band
            long steady = start + (inBandFrom(starting, C) + 1) * WINDOW.toNanos();
            long end = start + PHASE * WINDOW.toNanos();
            List<OpenLoad.Call> calls = load.callsBetween(steady, end);
            double seconds = (end - steady) / 1e9;
            double goodput = calls.size() / seconds;
            long noLoad = load.calls.stream()
                    .mapToLong(OpenLoad.Call::latencyNanos)
                    .min()
                    .orElseThrow();
            long p99 = percentile(calls, 0.99);
            long p50 = percentile(calls, 0.50);

            dependency.capacity(C / 2);
            long halvedAt = System.nanoTime();
            List<Integer> halved = phase(load, halvedAt);
            int followedDown = settledWithin(halved, C / 2);

            dependency.capacity(C);
            long restoredAt = System.nanoTime();
            List<Integer> restored = phase(load, restoredAt);
            int followedUp = settledWithin(restored, C);

            System.out.printf(
                    "%s: C %d, L0 %d ms, window %d ms, %d instance(s), open load %d/s%n"
                            + "  start:      %s (settled after %d windows)%n"
                            + "  C halved:   %s (%d)%n"
                            + "  C restored: %s (%d)%n"
                            + "  settled: goodput %.0f/s of %d/s, p50 %.1f ms, p99 %.1f ms, no-load %.1f ms;"
                            + " most in flight %d, refused %d (answered in %.1f ms at p99)%n",
                    getClass().getSimpleName(),
                    C,
                    L0.toMillis(),
                    WINDOW.toMillis(),
                    instances(),
                    LOAD,
                    starting,
                    settled,
                    halved,
                    followedDown,
                    restored,
                    followedUp,
                    goodput,
                    C * 1000 / L0.toMillis(),
                    p50 / 1e6,
                    p99 / 1e6,
                    noLoad / 1e6,
                    load.mostInFlight.get(),
                    load.refused.get(),
                    load.refusalPercentile(0.99) / 1e6);

            assertThat(settled)
                    .as("windows to find C from the start: %s", starting)
                    .isLessThanOrEqualTo(K);
            assertThat(followedDown)
                    .as("windows to follow C halved: %s", halved)
                    .isLessThanOrEqualTo(K);
            assertThat(followedUp)
                    .as("windows to follow C restored: %s", restored)
                    .isLessThanOrEqualTo(K);
            assertThat(goodput).as("goodput once settled").isGreaterThanOrEqualTo(0.9 * C * 1000 / L0.toMillis());
            assertThat(p99)
                    .as("the admitted calls' p99 within the tolerated latency of %.1f ms", TOLERANCE * noLoad / 1e6)
                    .isLessThanOrEqualTo((long) (TOLERANCE * noLoad));
            assertThat(load.overLimit.get())
                    .as("admissions past the limit of their moment")
                    .isZero();
            assertThat(load.failures.get()).as("acquisitions that failed").isZero();
            long refusalP99 = load.refusalPercentile(0.99);
            assertThat(refusalP99)
                    .as("refusals answer at once, never waiting for a slot: p99 %.1f ms", refusalP99 / 1e6)
                    .isLessThan(L0.toNanos());
        }
    }

    @Test
    void neverCreepsUpThroughALongIncidentOrOnDrops() throws Exception {
        HiddenCapacity dependency = new HiddenCapacity(C, L0);
        try (OpenLoad load = new OpenLoad(this::instance, instances(), dependency, fresh("dependency"), SETTINGS, LEASE)
                .start(LOAD)) {
            settle(load);

            dependency.latency(L0.multipliedBy(10));
            long slowAt = System.nanoTime();
            List<Integer> slow = phase(load, slowAt);

            dependency.latency(L0);
            dependency.failing(true);
            long failingAt = System.nanoTime();
            List<Integer> failing = windows(load, failingAt, 12);

            System.out.printf(
                    "%s: latency ten times L0: %s%n  every call dropped: %s%n",
                    getClass().getSimpleName(), slow, failing);

            // the first windows still see the calls admitted before the incident end; from then on, never up
            List<Integer> during = slow.subList(4, slow.size());
            assertThat(increases(during))
                    .as("rises through the incident: %s", slow)
                    .isEmpty();
            assertThat(during.get(during.size() - 1))
                    .as("the limit once the incident has run for a while: %s", slow)
                    .isLessThanOrEqualTo(C / 2);
            assertThat(increases(failing.subList(1, failing.size())))
                    .as("rises on dropped calls: %s", failing)
                    .isEmpty();
            assertThat(load.overLimit.get()).isZero();
        }
    }

    /** An instance killed mid-load gives its slots back within their lease, and the other goes on at the limit. */
    @Test
    void aLostInstanceGivesItsSlotsBackWithinTheirLease() throws Exception {
        if (!instancesShareState()) {
            return; // one instance: nothing else to lose
        }
        HiddenCapacity dependency = new HiddenCapacity(C, L0);
        String name = fresh("dependency");
        try (OpenLoad load = new OpenLoad(this::instance, 2, dependency, name, SETTINGS, LEASE).start(LOAD)) {
            settle(load);
            load.lose(1);
            long lostAt = System.nanoTime();
            // the lost instance's slots are held, unused, until their lease runs out; then the limit finds the
            // capacity again within K windows, and the instance left completes what the dependency can
            List<Integer> held = windows(load, lostAt, (int) (LEASE.toMillis() / WINDOW.toMillis()));
            long freedAt = System.nanoTime();
            List<Integer> after = phase(load, freedAt);
            int settled = settledWithin(after, C);
            long steady = freedAt + (inBandFrom(after, C) + 1) * WINDOW.toNanos();
            long end = freedAt + PHASE * WINDOW.toNanos();
            double goodput = load.callsBetween(steady, end).size() / ((end - steady) / 1e9);
            System.out.printf(
                    "%s: an instance lost: %s while its slots are held, then %s (settled after %d windows),"
                            + " goodput %.0f/s%n",
                    getClass().getSimpleName(), held, after, settled, goodput);
            assertThat(settled)
                    .as("windows to find C once the lost slots came back: %s", after)
                    .isLessThanOrEqualTo(K);
            assertThat(goodput)
                    .as("goodput of the instance left, once the lost one's slots came back: %s", after)
                    .isGreaterThanOrEqualTo(0.9 * C * 1000 / L0.toMillis());
            assertThat(load.overLimit.get()).isZero();
        }
    }

    @Test
    void aFixedAdaptiveLimitIsExactAcrossInstancesAndASlotIsGivenBackOnce() throws Exception {
        AdaptiveSettings three = new AdaptiveSettings(3, 3, 3, 2.0, WINDOW);
        String name = fresh("export");
        ClientIdentifier key = ClientIdentifier.of(fresh("key"));
        AdaptivePermit first = instance(0).tryAcquire(name, key, three, LEASE, LEASE);
        AdaptivePermit second = instance(1).tryAcquire(name, key, three, LEASE, LEASE);
        AdaptivePermit third = instance(0).tryAcquire(name, key, three, LEASE, LEASE);
        assertThat(first.limit()).isEqualTo(3);
        assertThatThrownBy(() -> instance(1).tryAcquire(name, key, three, LEASE, LEASE))
                .isInstanceOfSatisfying(ConcurrencyLimitExceededException.class, e -> {
                    assertThat(e.max()).isEqualTo(3);
                    assertThat(e.name()).isEqualTo(name);
                });
        assertThat(first.drop()).isTrue();
        assertThat(first.release()).as("a slot ends once").isFalse();
        AdaptivePermit fourth = instance(1).tryAcquire(name, key, three, LEASE, LEASE);
        assertThatThrownBy(() -> instance(0).tryAcquire(name, key, three, LEASE, LEASE))
                .isInstanceOf(ConcurrencyLimitExceededException.class);
        assertThat(instance(0)
                        .tryAcquire(name, ClientIdentifier.of(fresh("other")), three, LEASE, LEASE)
                        .release())
                .as("another key's slots")
                .isTrue();
        second.release();
        third.release();
        fourth.release();

        // and under real threads on both instances, never more than 3 at once
        java.util.concurrent.atomic.AtomicInteger inProgress = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
        Threads.run(24, 10, (thread, i) -> {
            try (AdaptivePermit permit = instance(thread).tryAcquire(name, key, three, LEASE, LEASE)) {
                most.accumulateAndGet(inProgress.incrementAndGet(), Math::max);
                Thread.sleep(1);
                inProgress.decrementAndGet();
            } catch (ConcurrencyLimitExceededException e) {
                assertThat(e.max()).isEqualTo(3);
            }
        });
        assertThat(most.get()).isBetween(1, 3);
    }

    /** Runs the first phase and asserts that the limit found the capacity. */
    private static void settle(OpenLoad load) throws InterruptedException {
        List<Integer> starting = phase(load, System.nanoTime());
        assertThat(settledWithin(starting, C))
                .as("windows to find C from the start: %s", starting)
                .isLessThanOrEqualTo(K);
    }

    /** Runs one phase and returns the limit window by window. */
    private static List<Integer> phase(OpenLoad load, long from) throws InterruptedException {
        return windows(load, from, PHASE);
    }

    private static List<Integer> windows(OpenLoad load, long from, int count) throws InterruptedException {
        long until = from + count * WINDOW.toNanos();
        long left;
        while ((left = until - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left); // the load runs on its own threads for this long
        }
        return load.limitsByWindow(from, count);
    }

    /**
     * The first window from which the limit stays within [0.8, 1.3] of {@code capacity}, but for at most one window
     * (a stall of the machine running the test is a real latency, which the limit answers); the windows' count if
     * none.
     */
    static int settledWithin(List<Integer> limits, int capacity) {
        int settled = limits.size();
        int outside = 0;
        for (int i = limits.size() - 1; i >= 0; i--) {
            int limit = limits.get(i);
            if (limit < 0.8 * capacity || limit > 1.3 * capacity) {
                if (++outside > 1 || i == limits.size() - 1) {
                    break;
                }
                continue;
            }
            settled = i;
        }
        return settled;
    }

    /** The first window from which the limit never leaves [0.8, 1.3] of {@code capacity}. */
    static int inBandFrom(List<Integer> limits, int capacity) {
        int from = limits.size();
        for (int i = limits.size() - 1;
                i >= 0 && limits.get(i) >= 0.8 * capacity && limits.get(i) <= 1.3 * capacity;
                i--) {
            from = i;
        }
        return from;
    }

    private static List<String> increases(List<Integer> limits) {
        List<String> up = new ArrayList<>();
        for (int i = 1; i < limits.size(); i++) {
            if (limits.get(i) > limits.get(i - 1)) {
                up.add(limits.get(i - 1) + " -> " + limits.get(i));
            }
        }
        return up;
    }

    private static long percentile(List<OpenLoad.Call> calls, double share) {
        long[] sorted = calls.stream()
                .filter(call -> !call.dropped())
                .mapToLong(OpenLoad.Call::latencyNanos)
                .sorted()
                .toArray();
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
    }
}
