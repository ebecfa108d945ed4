package io.github.ratelimit.redis.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.internal.AdaptiveLimit;
import io.github.ratelimit.core.internal.AdaptiveLimit.Settings;
import io.github.ratelimit.core.internal.AdaptiveLimit.State;
import io.github.ratelimit.core.internal.AdaptiveLimit.Window;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.test.support.RawRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * An adaptive limit's windows in Redis: the script's step is {@link AdaptiveLimit}'s, value for value, and two
 * instances' threads reporting into a window and stepping at once see every report counted exactly and the window
 * applied once.
 */
class AdaptiveWindowsTest {

    static final Settings SETTINGS = new Settings(1, 1_000, 10, 1.25);

    /** A window so long that the current one is window 0 and the closed one -1, for as long as the test runs. */
    static final Duration FOREVER = Duration.ofMillis(10_000_000_000_000L);

    @Test
    void theScriptsStepIsTheAlgorithmsValueForValue() {
        RedissonClient client = SharedRedis.get().newClient();
        int port = SharedRedis.get().port();
        Random random = new Random(86);
        try {
            AdaptiveWindows windows = new AdaptiveWindows(client, "adaptive:", Guards.patient(), FOREVER);
            for (int i = 0; i < 300; i++) {
                String name = "agree-" + i;
                List<Object> keys = windows.keys(name);
                State state = new State(
                        1 + random.nextInt(999) + random.nextDouble(),
                        random.nextBoolean() ? 0 : 1 + random.nextInt(50_000),
                        random.nextBoolean());
                long completed = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(5_000);
                long lowest = 1 + random.nextInt(100_000);
                Window window = new Window(
                        completed,
                        completed * (lowest + random.nextInt(200_000)),
                        lowest,
                        random.nextInt(3) == 0 ? random.nextInt(1_000) : 0,
                        random.nextInt(1_000),
                        random.nextInt(2_000));
                RawRedis.command(
                        port,
                        "HSET",
                        (String) keys.get(1),
                        "limit",
                        String.format("%.17g", state.limit()),
                        "n",
                        Long.toString(state.noLoadMicros()),
                        "slow",
                        state.slowStart() ? "1" : "0",
                        "a",
                        "-2");
                RawRedis.command(
                        port,
                        "HSET",
                        (String) keys.get(0),
                        "-1:c",
                        Long.toString(window.completed()),
                        "-1:s",
                        Long.toString(window.latencySumMicros()),
                        "-1:l",
                        Long.toString(window.lowestLatencyMicros()),
                        "-1:d",
                        Long.toString(window.dropped()),
                        "-1:r",
                        Long.toString(window.refused()),
                        "-1:p",
                        Long.toString(window.peakInFlight()));

                AdaptiveWindows.Step step = windows.step(name, SETTINGS);

                assertThat(step.lastWindowApplied()).isEqualTo(-1);
                assertThat(step.state())
                        .as("state %s, window %s", state, window)
                        .isEqualTo(AdaptiveLimit.next(SETTINGS, state, window));
            }
        } finally {
            client.shutdown();
        }
    }

    @Test
    void twoInstancesReportExactlyAndAWindowIsAppliedOnce() throws Exception {
        Duration length = Duration.ofSeconds(2);
        String name = "fleet-" + UUID.randomUUID();
        RedissonClient clientA = SharedRedis.get().newClient();
        RedissonClient clientB = SharedRedis.get().newClient();
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try {
            List<AdaptiveWindows> instances = List.of(
                    new AdaptiveWindows(clientA, "adaptive:", Guards.patient(), length),
                    new AdaptiveWindows(clientB, "adaptive:", Guards.patient(), length));
            // what each window was told, by the index each report says it landed in
            Map<Long, long[]> told = new ConcurrentHashMap<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> reporting = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                AdaptiveWindows instance = instances.get(t % 2);
                int thread = t;
                reporting.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < 50; i++) {
                        long latency = 10_000 + thread * 100 + i;
                        long index = instance.report(
                                name, new Window(3, 3 * latency, latency / 2, i % 10 == 0 ? 1 : 0, 2, 10));
                        long[] sums =
                                told.computeIfAbsent(index, ignored -> new long[] {0, 0, Long.MAX_VALUE, 0, 0, 0});
                        synchronized (sums) {
                            sums[0] += 3;
                            sums[1] += 3 * latency;
                            sums[2] = Math.min(sums[2], latency / 2);
                            sums[3] += i % 10 == 0 ? 1 : 0;
                            sums[4] += 2;
                            sums[5] = Math.max(sums[5], 10);
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> done : reporting) {
                done.get(60, TimeUnit.SECONDS);
            }
            long last = told.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
            int port = SharedRedis.get().port();
            List<Object> keys = instances.get(0).keys(name);
            for (Map.Entry<Long, long[]> window : told.entrySet()) {
                String at = window.getKey() + ":";
                assertThat(RawRedis.command(port, "HGET", (String) keys.get(0), at + "c"))
                        .as("completed calls of window %s, counted exactly", window.getKey())
                        .contains("\r\n" + window.getValue()[0] + "\r\n");
            }
            // wait for the last window to close, on Redis's clock, then step from every thread at once
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (redisMillis(port) / length.toMillis() <= last && System.nanoTime() - deadline < 0) {
                Thread.sleep(10); // a poll of Redis's clock, with a deadline
            }
            Set<AdaptiveWindows.Step> steps = ConcurrentHashMap.newKeySet();
            AtomicLong calls = new AtomicLong();
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> stepping = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                AdaptiveWindows instance = instances.get(t % 2);
                stepping.add(threads.submit(() -> {
                    go.await();
                    steps.add(instance.step(name, SETTINGS));
                    calls.incrementAndGet();
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> done : stepping) {
                done.get(60, TimeUnit.SECONDS);
            }
            assertThat(calls.get()).isEqualTo(16);
            assertThat(steps).as("every call sees the one step of the window").hasSize(1);
            AdaptiveWindows.Step step = steps.iterator().next();
            long[] sums = told.get(step.lastWindowApplied());
            Window applied = sums == null
                    ? new Window(0, 0, 0, 0, 0, 0)
                    : new Window(sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]);
            // the window was slower than tolerated against its fastest call: applied once the limit shrinks by the
            // gradient, applied twice it would shrink again
            assertThat(step.state()).isEqualTo(AdaptiveLimit.next(SETTINGS, AdaptiveLimit.start(SETTINGS), applied));
        } finally {
            threads.shutdownNow();
            clientA.shutdown();
            clientB.shutdown();
        }
    }

    /** Redis's clock in ms, from {@code TIME}. */
    static long redisMillis(int port) {
        String[] lines = RawRedis.command(port, "TIME").split("\r\n");
        return Long.parseLong(lines[2]) * 1000 + Long.parseLong(lines[4]) / 1000;
    }
}
