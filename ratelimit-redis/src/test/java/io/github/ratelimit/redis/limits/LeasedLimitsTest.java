package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RateLimitListener.Lease;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.Usage;
import io.github.ratelimit.fixtures.SharedCluster;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.fixtures.Stalls;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Leased limits on one Redis, each application instance with its own client: the bound (a window of Redis's clock
 * never admits more than the limit, an instance killed or not; a lease is never spent after its window), how much a
 * window may admit less, leases sized to each instance's demand, unused permits given back, and an instance that
 * loses Redis deciding no further than its lease.
 */
class LeasedLimitsTest {

    /**
     * Four instances, twelve threads calling random instances at random costs (1 to 3) and random pauses (0 to 20 ms:
     * several times the limit's rate, so that windows refuse however slow the machine) for 30 windows of 200 ms; one
     * instance is
     * killed (its client shut down, nothing given back) after 12 windows. Every window admits at most the limit; every
     * admitted call started before its window's end (Redis and this JVM read the same clock, so a lease spent late is
     * seen); a window that refused a call admitted at least the limit less what four leases may hold.
     */
    @Test
    void aWindowNeverAdmitsMoreThanTheLimitWithAnInstanceKilled() throws Exception {
        long windowMs = 200;
        // 50 per window: twelve threads ask for several times that even on a slow machine, so windows refuse
        long permits = 50;
        long ceiling = 5; // a lease of 0.1
        RateLimit limit = RateLimit.of("global-" + UUID.randomUUID(), Algorithm.FIXED_WINDOW, permits, windowMs)
                .withLease(0.1);
        int instances = 4;
        List<RedissonClient> clients = new ArrayList<>();
        List<RedisRateLimiter> limiters = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            clients.add(SharedRedis.get().newClient());
            limiters.add(new RedisRateLimiter(clients.get(i), "ratelimit:", Guards.patient()));
        }
        AtomicBoolean killed = new AtomicBoolean();
        Map<Long, AtomicLong> admittedPerWindow = new ConcurrentHashMap<>();
        Set<Long> refusing = ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<String> late = new ConcurrentLinkedQueue<>();
        long runUntil = System.currentTimeMillis() + 30 * windowMs;
        long killAt = System.currentTimeMillis() + 12 * windowMs + windowMs / 2;
        int threads = 12;
        CountDownLatch done = new CountDownLatch(threads);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.currentTimeMillis() < runUntil) {
                        int which = random.nextInt(instances);
                        if (which == 0 && killed.get()) {
                            continue;
                        }
                        long cost = 1 + random.nextInt(3);
                        long before = System.currentTimeMillis();
                        Decision decision;
                        try {
                            decision = limiters.get(which).tryAcquire(List.of(LimitRequest.of(limit, "all", cost)));
                        } catch (RuntimeException e) {
                            if (which == 0 && killed.get()) {
                                continue; // the killed instance's last calls
                            }
                            throw e;
                        }
                        long index = decision.decidedAt().toEpochMilli() / windowMs;
                        if (!decision.allowed()) {
                            refusing.add(index);
                        } else {
                            admittedPerWindow
                                    .computeIfAbsent(index, i -> new AtomicLong())
                                    .addAndGet(cost);
                            if (before >= (index + 1) * windowMs) {
                                late.add("started at " + before + ", admitted in window " + index);
                            }
                        }
                        if (which != 0 && System.currentTimeMillis() >= killAt && killed.compareAndSet(false, true)) {
                            clients.get(0).shutdown(0, 0, TimeUnit.MILLISECONDS);
                        }
                        Thread.sleep(random.nextInt(20)); // the load's shape, not a wait for anything
                    }
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    done.countDown();
                }
            });
            worker.start();
        }
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        for (int i = 1; i < instances; i++) {
            clients.get(i).shutdown();
        }
        assertThat(failures).isEmpty();
        assertThat(killed).isTrue();
        assertThat(late).isEmpty();
        TreeMap<Long, Long> windows = new TreeMap<>();
        admittedPerWindow.forEach((index, admitted) -> windows.put(index, admitted.get()));
        assertThat(windows).hasSizeGreaterThanOrEqualTo(20);
        assertThat(windows.values()).allSatisfy(admitted -> assertThat(admitted).isLessThanOrEqualTo(permits));
        // a window that refused had leased all its permits: what it admitted less is what four leases held at its end,
        // each at most its ceiling and one call less (the killed instance's among them)
        assertThat(refusing).as("windows that refused").isNotEmpty();
        for (long index : refusing) {
            assertThat(windows.getOrDefault(index, 0L))
                    .as("window %d of %s", index, windows)
                    .isGreaterThanOrEqualTo(permits - instances * (ceiling + 2));
        }
    }

    /**
     * One instance calls 2,000 times in a window of 10,000, another once: the busy one's leases grow with its rate and
     * it asks Redis a few times; the quiet one's lease is the one permit it asked for.
     */
    @Test
    void aLeaseIsSizedToItsInstancesDemand() {
        RateLimit limit = RateLimit.of("sized-" + UUID.randomUUID(), Algorithm.FIXED_WINDOW, 10_000, 60_000)
                .withLease(0.5);
        RedissonClient busyClient = SharedRedis.get().newClient();
        RedissonClient quietClient = SharedRedis.get().newClient();
        try {
            RedisRateLimiter busy = new RedisRateLimiter(busyClient, "ratelimit:", Guards.patient());
            RedisRateLimiter quiet = new RedisRateLimiter(quietClient, "ratelimit:", Guards.patient());
            ConcurrentLinkedQueue<Long> busyTaken = listen(busy);
            ConcurrentLinkedQueue<Long> quietTaken = listen(quiet);
            for (int i = 0; i < 2_000; i++) {
                assertThat(busy.tryAcquire(List.of(LimitRequest.of(limit, "all", 1)))
                                .allowed())
                        .isTrue();
            }
            assertThat(quiet.tryAcquire(List.of(LimitRequest.of(limit, "all", 1)))
                            .allowed())
                    .isTrue();

            assertThat(quietTaken).containsExactly(1L);
            assertThat(busyTaken.stream().mapToLong(Long::longValue).sum()).isGreaterThanOrEqualTo(2_000);
            assertThat(busyTaken.size()).as("leases %s", busyTaken).isLessThan(100);
        } finally {
            busyClient.shutdown();
            quietClient.shutdown();
        }
    }

    /** What an instance holds unused when it closes is given back and admitted by another instance in that window. */
    @Test
    void unusedPermitsAreGivenBackForOtherInstances() {
        RateLimit limit = RateLimit.of("back-" + UUID.randomUUID(), Algorithm.FIXED_WINDOW, 10, 600_000)
                .withLease(1.0);
        RedissonClient clientA = SharedRedis.get().newClient();
        RedissonClient clientB = SharedRedis.get().newClient();
        try {
            RedisRateLimiter a = new RedisRateLimiter(clientA, "ratelimit:", Guards.patient());
            RedisRateLimiter b = new RedisRateLimiter(clientB, "ratelimit:", Guards.patient());
            ConcurrentLinkedQueue<String> told = new ConcurrentLinkedQueue<>();
            a.events().add(new RateLimitListener() {
                @Override
                public void leased(String name, Lease outcome, long units) {
                    told.add(outcome + " " + units);
                }
            });
            // a's first call costs 6: its lease is 6
            assertThat(a.tryAcquire(List.of(LimitRequest.of(limit, "all", 6))).allowed())
                    .isTrue();
            assertThat(a.tryAcquire(List.of(LimitRequest.of(limit, "all", 2))).allowed())
                    .isTrue();
            a.close();

            int admittedByB = 0;
            while (b.tryAcquire(List.of(LimitRequest.of(limit, "all", 1))).allowed()) {
                admittedByB++;
            }
            // the second call found the lease spent and, at a's rate, asked for more than the 4 left
            assertThat(told).containsExactly("TAKEN 6", "TAKEN 4", "RETURNED 2");
            assertThat(admittedByB).isEqualTo(2);
        } finally {
            clientA.shutdown();
            clientB.shutdown();
        }
    }

    /**
     * An instance that cannot reach Redis admits what its lease holds, not one call more: then its calls fail as an
     * exact decision's would, for the failure mode to answer.
     */
    @Test
    void anInstanceThatLosesRedisDecidesNoFurtherThanItsLease() {
        RateLimit limit = RateLimit.of("cut-" + UUID.randomUUID(), Algorithm.FIXED_WINDOW, 1_000, 600_000)
                .withLease(0.1);
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient client = redis.newClient();
            try {
                RedisRateLimiter limiter = new RedisRateLimiter(
                        client,
                        "ratelimit:",
                        new RedisGuard(Stalls.budget(Duration.ofMillis(300)), 100, Duration.ofSeconds(1)));
                ConcurrentLinkedQueue<Long> taken = listen(limiter);
                // a first call of cost 40 leases 40
                assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, "all", 40)))
                                .allowed())
                        .isTrue();
                assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, "all", 1)))
                                .allowed())
                        .isTrue();
                long held = taken.stream().mapToLong(Long::longValue).sum() - 41;
                redis.crash();

                for (long i = 0; i < held; i++) {
                    assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, "all", 1)))
                                    .allowed())
                            .isTrue();
                }
                assertThatThrownBy(() -> limiter.tryAcquire(List.of(LimitRequest.of(limit, "all", 1))))
                        .isInstanceOf(RedisUnavailableException.class);
            } finally {
                client.shutdown();
            }
        }
    }

    /**
     * On a Redis Cluster, two instances (a client each) with eight threads in all, a leased limit of 300 a day for two
     * tenants, each call also under an exact limit of its tenant: each tenant is admitted exactly 300 (unless a day
     * ends during the test), one script call per lease, no CROSSSLOT; a usage read of both limits reads both.
     */
    @Test
    void onACluster() throws Exception {
        RateLimit leased = RateLimit.of("tenant-" + UUID.randomUUID(), Algorithm.FIXED_WINDOW, 300, 86_400_000)
                .withLease(0.2);
        RateLimit exact = RateLimit.of("exact-" + UUID.randomUUID(), Algorithm.SLIDING_WINDOW, 100_000, 60_000);
        List<RedissonClient> clients =
                List.of(SharedCluster.get().newClient(), SharedCluster.get().newClient());
        try {
            List<RedisRateLimiter> limiters = clients.stream()
                    .map(c -> new RedisRateLimiter(c, "ratelimit:", Guards.patient()))
                    .toList();
            Map<String, AtomicLong> admitted = new ConcurrentHashMap<>();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            CountDownLatch done = new CountDownLatch(8);
            for (int t = 0; t < 8; t++) {
                RedisRateLimiter limiter = limiters.get(t % 2);
                String tenant = "tenant-" + (t % 4 < 2 ? "a" : "b");
                Thread worker = new Thread(() -> {
                    try {
                        for (int i = 0; i < 200; i++) {
                            Decision decision = limiter.tryAcquire(
                                    List.of(LimitRequest.of(leased, tenant, 1), LimitRequest.of(exact, tenant, 1)));
                            if (decision.allowed()) {
                                admitted.computeIfAbsent(tenant, k -> new AtomicLong())
                                        .incrementAndGet();
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    } finally {
                        done.countDown();
                    }
                });
                worker.start();
            }
            assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
            assertThat(failures).isEmpty();
            assertThat(admitted.get("tenant-a")).hasValue(300);
            assertThat(admitted.get("tenant-b")).hasValue(300);
            // the exact limit counted only the admitted calls: a refusal by the lease took nothing from it
            assertThat(limiters.get(0)
                            .usage(List.of(LimitRequest.of(exact, "tenant-a", 0)))
                            .windows()
                            .get(0)
                            .used())
                    .isEqualTo(300);
            // read together: the exact limit as Redis counts it, the leased one as this instance last heard (spent)
            List<Usage.Window> both = limiters.get(0)
                    .usage(List.of(LimitRequest.of(leased, "tenant-a", 1), LimitRequest.of(exact, "tenant-a", 1)))
                    .windows();
            assertThat(both)
                    .extracting(window -> window.limit().name(), Usage.Window::used)
                    .containsExactlyInAnyOrder(tuple(leased.name(), 300L), tuple(exact.name(), 300L));
        } finally {
            clients.forEach(RedissonClient::shutdown);
        }
    }

    /** A leased limit cannot be combined with what it cannot keep: each named in the error. */
    @Test
    void aLeaseRefusesWhatItCannotKeep() {
        RateLimit sliding = RateLimit.of("s", Algorithm.SLIDING_WINDOW, 10, 1000);
        assertThatThrownBy(() -> sliding.withLease(0.1))
                .hasMessageContaining("limit 's' is leased")
                .hasMessageContaining("use FIXED_WINDOW");
        RateLimit fixed = RateLimit.of("f", Algorithm.FIXED_WINDOW, 10, 1000);
        assertThatThrownBy(() -> fixed.withPenalty(Duration.ofSeconds(1)).withLease(0.1))
                .hasMessageContaining("a penalty");
        assertThatThrownBy(() -> fixed.withLease(1.5)).hasMessageContaining("lease must be 0");
        assertThat(fixed.withLease(0.25).leaseCeiling()).isEqualTo(2);
        assertThat(fixed.withLease(0.01).leaseCeiling()).isEqualTo(1);
    }

    private static ConcurrentLinkedQueue<Long> listen(RedisRateLimiter limiter) {
        ConcurrentLinkedQueue<Long> taken = new ConcurrentLinkedQueue<>();
        limiter.events().add(new RateLimitListener() {
            @Override
            public void leased(String name, Lease outcome, long units) {
                if (outcome == Lease.TAKEN) {
                    taken.add(units);
                }
            }
        });
        return taken;
    }
}
