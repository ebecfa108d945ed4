package io.github.ratelimit.redis.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.AdaptivePermit;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.Status;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.Steering;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.internal.AdaptiveLimit;
import io.github.ratelimit.core.internal.AdaptiveLimit.State;
import io.github.ratelimit.core.internal.AdaptiveLimit.Window;
import io.github.ratelimit.core.internal.AdaptiveSlots;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.test.kit.Poll;
import io.github.ratelimit.test.support.RawRedis;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * The adaptive limit's scripts in Redis: the step {@code adaptive_acquire.lua} applies is {@link AdaptiveLimit}'s,
 * value for value, with an operator's steering or without, and the window it applied is listed as the step left it;
 * two instances' threads giving slots back into one window are all counted; and when they take slots
 * at once after a window closed, the window is applied once for the fleet; and while Redis cannot decide, each
 * instance holds its share of the fleet's last limit, in memory, until Redis answers again.
 */
class RedisAdaptiveLimitsTest {

    /** A window so long that the current one is window 0 and the closed one -1 for as long as the test runs. */
    static final Duration FOREVER = Duration.ofMillis(10_000_000_000_000L);

    static final AdaptiveSettings SETTINGS = new AdaptiveSettings(1, 1_000, 10, 1.25, FOREVER);

    static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void theScriptsStepIsTheAlgorithmsValueForValue() {
        RedissonClient client = SharedRedis.get().newClient();
        Random random = new Random(86);
        try (RedisConcurrencyLimiter limiter = new RedisConcurrencyLimiter(client, "adaptive:", Guards.patient())) {
            for (int i = 0; i < 300; i++) {
                String name = "agree-" + i;
                ClientIdentifier key = ClientIdentifier.of("dependency");
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
                        random.nextInt(3) == 0 ? random.nextInt((int) completed + 1) : 0,
                        random.nextInt(3) == 0 ? random.nextInt(1_000) : 0,
                        random.nextInt(1_000),
                        random.nextInt(2_000));
                String holders = seed(name, key, state, window);
                Steering steering =
                        switch (random.nextInt(5)) {
                            case 0 -> new Steering(1 + random.nextInt(1_500), null, null);
                            case 1 -> new Steering(null, 1 + random.nextInt(1_500), null);
                            case 2 -> new Steering(null, null, 1 + random.nextInt(1_000));
                            case 3 -> new Steering(null, 1 + random.nextInt(300), 300 + random.nextInt(300));
                            default -> null;
                        };
                limiter.steer(name, key, steering);

                AdaptivePermit permit = limiter.tryAcquire(name, key, SETTINGS, LEASE, LEASE);
                permit.release();

                State expected = AdaptiveLimit.next(SETTINGS, steering, state, window);
                assertThat(stateOf(holders))
                        .as("state %s, window %s, steering %s", state, window, steering)
                        .isEqualTo(expected);
                int slots = Math.max(1, expected.slots());
                assertThat(permit.limit()).isEqualTo(slots);
                Status status = limiter.status(name, key);
                assertThat(status).isNotNull();
                assertThat(status.limit()).isEqualTo(slots);
                assertThat(status.steering()).isEqualTo(steering);
                assertThat(status.windows())
                        .as("the window applied, as the step left it")
                        .containsExactly(new AdaptiveConcurrencyLimiter.Window(
                                -1,
                                slots,
                                window.completed(),
                                window.dropped(),
                                window.refused(),
                                window.peakInFlight(),
                                AdaptiveSlots.micros(
                                        window.completed() == 0 ? 0 : window.latencySumMicros() / window.completed())));
                assertThat(permit.recentLatency())
                        .isEqualTo(status.windows().get(0).meanLatency());
            }
        }
    }

    /**
     * An operator's steering is the fleet's: written by one instance, read by the other; the limit pinned holds through
     * a slow window and goes on from the pin once cleared; the windows kept are the last 30, newest first.
     */
    @Test
    void aSteeringIsTheFleetsAndTheLastWindowsAreKept() throws Exception {
        String name = "steer-" + UUID.randomUUID();
        ClientIdentifier key = ClientIdentifier.of("dependency");
        AdaptiveSettings settings = new AdaptiveSettings(1, 100, 10, 2.0, Duration.ofMillis(20));
        RedissonClient clientA = SharedRedis.get().newClient();
        RedissonClient clientB = SharedRedis.get().newClient();
        try (RedisConcurrencyLimiter a = new RedisConcurrencyLimiter(clientA, "adaptive:", Guards.patient());
                RedisConcurrencyLimiter b = new RedisConcurrencyLimiter(clientB, "adaptive:", Guards.patient())) {
            assertThat(a.status(name, key)).as("never taken, never steered").isNull();
            a.steer(name, key, new Steering(7, null, null));
            assertThat(b.status(name, key)).isEqualTo(new Status(0, null, 1, new Steering(7, null, null), List.of()));

            Poll.until("the pin to hold on the other instance", Duration.ofSeconds(20), () -> {
                try (AdaptivePermit permit = b.tryAcquire(name, key, settings, LEASE, LEASE)) {
                    return permit.limit() == 7;
                }
            });
            long first = a.status(name, key).windows().get(0).index();
            Poll.until("more than 30 windows applied since", Duration.ofSeconds(30), () -> {
                b.tryAcquire(name, key, settings, LEASE, LEASE).release();
                List<AdaptiveConcurrencyLimiter.Window> windows =
                        a.status(name, key).windows();
                return windows.size() == Status.WINDOWS_KEPT && windows.get(29).index() > first;
            });
            Status pinned = a.status(name, key);
            assertThat(pinned.windows()).hasSize(Status.WINDOWS_KEPT).allSatisfy(w -> assertThat(w.limit())
                    .isEqualTo(7));
            assertThat(pinned.windows())
                    .extracting(AdaptiveConcurrencyLimiter.Window::index)
                    .isSortedAccordingTo(java.util.Comparator.reverseOrder());

            a.steer(name, key, new Steering(null, 5, 5)); // both bounds: whatever the windows measure, 5
            Poll.until("the bounds to take the pinned limit of 7 to 5", Duration.ofSeconds(20), () -> {
                try (AdaptivePermit permit = b.tryAcquire(name, key, settings, LEASE, LEASE)) {
                    return permit.limit() == 5;
                }
            });
            a.steer(name, key, null);
            assertThat(b.status(name, key).steering()).isNull();
        } finally {
            clientA.shutdown();
            clientB.shutdown();
        }
    }

    @Test
    void twoInstancesAreCountedExactlyAndAWindowIsAppliedOnce() throws Exception {
        String name = "fleet-" + UUID.randomUUID();
        ClientIdentifier key = ClientIdentifier.of("dependency");
        RedissonClient clientA = SharedRedis.get().newClient();
        RedissonClient clientB = SharedRedis.get().newClient();
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try (RedisConcurrencyLimiter a = new RedisConcurrencyLimiter(clientA, "adaptive:", Guards.patient());
                RedisConcurrencyLimiter b = new RedisConcurrencyLimiter(clientB, "adaptive:", Guards.patient())) {
            List<RedisConcurrencyLimiter> instances = List.of(a, b);
            // a closed window slower than tolerated: applied once, the limit shrinks by the gradient; twice, again
            State before = new State(400, 10_000, false);
            Window slow = new Window(1_000, 1_000 * 20_000L, 10_000, 0, 0, 0, 400);
            String holders = seed(name, key, before, slow);

            AtomicInteger completed = new AtomicInteger();
            AtomicInteger dropped = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                RedisConcurrencyLimiter instance = instances.get(t % 2);
                running.add(threads.submit(() -> {
                    go.await();
                    for (int i = 0; i < 50; i++) {
                        try {
                            AdaptivePermit permit = instance.tryAcquire(name, key, SETTINGS, LEASE, LEASE);
                            if (i % 10 == 0) {
                                permit.drop();
                                dropped.incrementAndGet();
                            } else {
                                permit.release();
                                completed.incrementAndGet();
                            }
                        } catch (ConcurrencyLimitExceededException e) {
                            refused.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> done : running) {
                done.get(60, TimeUnit.SECONDS);
            }

            assertThat(stateOf(holders))
                    .as("the closed window, applied once by 16 threads of two instances")
                    .isEqualTo(AdaptiveLimit.next(SETTINGS, before, slow));
            assertThat(completed.get() + dropped.get() + refused.get()).isEqualTo(800);
            assertThat(field(holders + ":windows", "0:c")).isEqualTo(completed.get());
            assertThat(field(holders + ":windows", "0:d")).isEqualTo(dropped.get());
            assertThat(field(holders + ":windows", "0:r")).isEqualTo(refused.get());
            assertThat(field(holders + ":instances", null)).as("instances seen").isEqualTo(2);
        } finally {
            threads.shutdownNow();
            clientA.shutdown();
            clientB.shutdown();
        }
    }

    /**
     * A fleet limit of 40 on two instances; Redis crashes: each instance holds 20 (its share, the last limit over the
     * instances seen) and refuses the 21st at once; once Redis answers again, the fleet decides again.
     */
    @Test
    void whileRedisCannotDecideEachInstanceHoldsItsShareOfTheLastFleetLimit() {
        AdaptiveSettings forty = new AdaptiveSettings(40, 40, 40, 2.0, Duration.ofMillis(100));
        String name = "share-" + UUID.randomUUID();
        ClientIdentifier key = ClientIdentifier.of("dependency");
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient clientA = redis.newClient();
            RedissonClient clientB = redis.newClient();
            try (RedisConcurrencyLimiter a = new RedisConcurrencyLimiter(clientA, "adaptive:", guard());
                    RedisConcurrencyLimiter b = new RedisConcurrencyLimiter(clientB, "adaptive:", guard())) {
                String state = new RedisKeys("adaptive:").adaptiveKey(name, RedisKeys.tag(key)) + ":state";
                Poll.until("the fleet to have counted both instances", Duration.ofSeconds(20), () -> {
                    a.tryAcquire(name, key, forty, LEASE, LEASE).release();
                    b.tryAcquire(name, key, forty, LEASE, LEASE).release();
                    return value(RawRedis.command(redis.port(), "HGET", state, "k"))
                            .equals("2");
                });
                a.tryAcquire(name, key, forty, LEASE, LEASE).release(); // each knows the fleet's count
                b.tryAcquire(name, key, forty, LEASE, LEASE).release();

                redis.crash();
                for (RedisConcurrencyLimiter instance : List.of(a, b)) {
                    List<AdaptivePermit> held = new ArrayList<>();
                    for (int i = 0; i < 20; i++) {
                        held.add(instance.tryAcquire(name, key, forty, LEASE, LEASE));
                    }
                    assertThat(held)
                            .allSatisfy(permit -> assertThat(permit.limit()).isEqualTo(20));
                    assertThatThrownBy(() -> instance.tryAcquire(name, key, forty, LEASE, LEASE))
                            .isInstanceOfSatisfying(ConcurrencyLimitExceededException.class, e -> assertThat(e.max())
                                    .isEqualTo(20));
                    held.forEach(AdaptivePermit::release);
                }

                redis.restart();
                Poll.until("the fleet's limit to decide again", Duration.ofSeconds(30), () -> {
                    try (AdaptivePermit permit = a.tryAcquire(name, key, forty, LEASE, LEASE)) {
                        return permit.limit() == 40;
                    }
                });
            } finally {
                clientA.shutdown();
                clientB.shutdown();
            }
        }
    }

    /** A short budget, so that a call to a crashed Redis fails fast and the guard opens. */
    private static RedisGuard guard() {
        return new RedisGuard(Duration.ofMillis(300), 2, Duration.ofMillis(500));
    }

    /** Writes a limit's state and its closed window -1; returns the key of its holders. */
    private static String seed(String name, ClientIdentifier key, State state, Window window) {
        int port = SharedRedis.get().port();
        String holders = new RedisKeys("adaptive:").adaptiveKey(name, RedisKeys.tag(key));
        RawRedis.command(
                port,
                "HSET",
                holders + ":state",
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
                holders + ":windows",
                "-1:c",
                Long.toString(window.completed()),
                "-1:s",
                Long.toString(window.latencySumMicros()),
                "-1:l",
                Long.toString(window.lowestLatencyMicros()),
                "-1:o",
                Long.toString(window.slow()),
                "-1:d",
                Long.toString(window.dropped()),
                "-1:r",
                Long.toString(window.refused()),
                "-1:p",
                Long.toString(window.peakInFlight()));
        return holders;
    }

    private static State stateOf(String holders) {
        int port = SharedRedis.get().port();
        String state = holders + ":state";
        return new State(
                Double.parseDouble(value(RawRedis.command(port, "HGET", state, "limit"))),
                Long.parseLong(value(RawRedis.command(port, "HGET", state, "n"))),
                value(RawRedis.command(port, "HGET", state, "slow")).equals("1"));
    }

    /** A hash's field as a number, or (field null) how many fields it has. */
    private static long field(String hash, String field) {
        int port = SharedRedis.get().port();
        String reply =
                field == null ? RawRedis.command(port, "HLEN", hash) : RawRedis.command(port, "HGET", hash, field);
        return reply.startsWith(":") ? Long.parseLong(reply.substring(1).trim()) : Long.parseLong(value(reply));
    }

    /** The text of a bulk string reply ({@code $<length>\r\n<text>\r\n}). */
    private static String value(String reply) {
        String[] lines = reply.split("\r\n");
        return lines.length > 1 ? lines[1] : "0";
    }
}
