package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.fixtures.Stalls;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.test.support.RawRedis;
import io.github.ratelimit.test.support.RedisClusterProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * What only a Redis Cluster shows: keys spread over slots and masters, identifiers in different slots, and a
 * failover under load. The promises of limits, tokens and locks run on a cluster in the Cluster*Test contract
 * tests.
 */
class RedisClusterTest {

    static RedisClusterProcess cluster;
    static RedissonClient clientA;
    static RedissonClient clientB;
    static RedisGuard guard = new RedisGuard(Duration.ofSeconds(2), 5, Duration.ofSeconds(1));
    static RedisRateLimiter limiterA;
    static RedisRateLimiter limiterB;

    @BeforeAll
    static void start() {
        cluster = RedisClusterProcess.start();
        clientA = cluster.newClient();
        clientB = cluster.newClient();
        limiterA = new RedisRateLimiter(clientA, "ratelimit:", guard);
        limiterB = new RedisRateLimiter(
                clientB, "ratelimit:", new RedisGuard(Duration.ofSeconds(2), 5, Duration.ofSeconds(1)));
    }

    @AfterAll
    static void stop() {
        clientA.shutdown();
        clientB.shutdown();
        cluster.close();
    }

    /** 2,000 users with three limits each: no CROSSSLOT, keys spread over many slots and every master. */
    @Test
    void manyUsersSpreadOverSlotsWithoutCrossSlotErrors() {
        List<RateLimit> limits = List.of(
                RateLimit.of("spread", Algorithm.SLIDING_WINDOW, 10, 1_000),
                RateLimit.of("spread", Algorithm.SLIDING_WINDOW, 120, 60_000),
                RateLimit.of("spread", Algorithm.TOKEN_BUCKET, 240, 3_600_000));
        Set<String> slots = new HashSet<>();
        for (int u = 0; u < 2_000; u++) {
            String user = "spread-user-" + u;
            List<LimitRequest> requests =
                    limits.stream().map(l -> LimitRequest.of(l, user, 1)).toList();
            assertThat(limiterA.tryAcquire(requests).allowed()).isTrue();
        }
        for (int port : cluster.masterPorts()) {
            String keys = RawRedis.command(port, "DBSIZE");
            assertThat(Long.parseLong(keys.substring(1).trim()))
                    .as("keys on master %d", port)
                    .isGreaterThan(500);
        }
        for (int u = 0; u < 2_000; u += 1) {
            slots.add(RawRedis.command(
                    cluster.masterPorts().get(0), "CLUSTER", "KEYSLOT", "{" + tagOf("spread-user-" + u) + "}"));
        }
        assertThat(slots.size()).isGreaterThan(1_500);
    }

    /**
     * Identifiers in different slots: each slot decides its part atomically, all at once; when the user's slot refuses,
     * what the IP's slot took is given back before the decision returns, so the call is all or nothing as on one Redis.
     * Prints the latencies: a two-slot call admitted (one round trip) and refused (one more, for the give-back).
     */
    @Test
    void identifiersInDifferentSlotsAreAllOrNothing() {
        RateLimit perUser = RateLimit.of("split-user", Algorithm.FIXED_WINDOW, 3, 60_000);
        RateLimit perIp = RateLimit.of("split-ip", Algorithm.FIXED_WINDOW, 10, 60_000);
        String user = "user-" + UUID.randomUUID();
        String ip = "ip-" + UUID.randomUUID();
        List<Boolean> allowed = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            allowed.add(limiterA.tryAcquire(List.of(LimitRequest.of(perUser, user, 1), LimitRequest.of(perIp, ip, 1)))
                    .allowed());
        }
        assertThat(allowed).containsExactly(true, true, true, false, false);
        Decision ipNow = limiterA.tryAcquire(List.of(LimitRequest.of(perIp, ip, 0)));
        assertThat(ipNow.remaining()).isEqualTo(10 - 3);

        long one = median(() -> limiterA.tryAcquire(List.of(LimitRequest.of(perIp, "l-" + UUID.randomUUID(), 1))));
        long two = median(() -> limiterA.tryAcquire(List.of(
                LimitRequest.of(perIp, "l-" + UUID.randomUUID(), 1),
                LimitRequest.of(perIp, "m-" + UUID.randomUUID(), 1))));
        RedisRateLimiter noLocalRefusals = new RedisRateLimiter(clientA, "ratelimit:", guard, 10, 0);
        long refused = median(() -> assertThat(noLocalRefusals
                        .tryAcquire(List.of(
                                LimitRequest.of(perUser, user, 1), LimitRequest.of(perIp, "r-" + UUID.randomUUID(), 1)))
                        .allowed())
                .isFalse());
        System.out.printf(
                "cluster decision median: one slot %d us, two slots admitted %d us, two slots refused with give-back %d us%n",
                one / 1000, two / 1000, refused / 1000);
    }

    /** CLUSTER FAILOVER of a master under load: every call answered within the budget, decisions resume. */
    @Test
    void failoverUnderLoadIsAnsweredInTime() {
        RedisGuard tight = new RedisGuard(Duration.ofMillis(200), 5, Duration.ofMillis(500));
        RedisRateLimiter limiter = new RedisRateLimiter(clientA, "ratelimit:", tight);
        RateLimit limit = RateLimit.of("failover", Algorithm.SLIDING_WINDOW, 1_000_000, 60_000);
        int replica = cluster.replicaPorts().get(0);
        AtomicLong worst = new AtomicLong();
        int failures = 0;
        int calls = 0;
        long start = System.nanoTime();
        boolean failedOver = false;
        Stalls stalls = Stalls.watch();
        while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4)) {
            if (!failedOver && System.nanoTime() - start > TimeUnit.SECONDS.toNanos(1)) {
                failedOver = true;
                assertThat(RawRedis.command(replica, "CLUSTER", "FAILOVER")).startsWith("+OK");
            }
            long began = System.nanoTime();
            try {
                limiter.tryAcquire(List.of(LimitRequest.of(limit, "user-" + (calls % 100), 1)));
            } catch (RedisUnavailableException e) {
                failures++;
            }
            worst.accumulateAndGet((System.nanoTime() - began) / 1_000_000, Math::max);
            calls++;
            long next = start + calls * 5_000_000L; // 200 calls per second
            while (System.nanoTime() < next) {
                Thread.onSpinWait();
            }
        }
        stalls.close();
        System.out.printf(
                "CLUSTER FAILOVER under load: %d calls, %d without Redis, worst %d ms, %s%n",
                calls, failures, worst.get(), stalls);
        assertThat(RawRedis.command(replica, "INFO", "replication")).contains("role:master");
        assertThat(worst.get()).as("worst call, %s", stalls).isLessThanOrEqualTo(stalls.allowing(500));
        assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, "after", 1)))
                        .allowed())
                .isTrue();
    }

    static long median(Runnable call) {
        List<Long> nanos = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            long started = System.nanoTime();
            call.run();
            nanos.add(System.nanoTime() - started);
        }
        nanos.sort(null);
        return nanos.get(500);
    }

    static String tagOf(String identifier) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(identifier.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(java.util.Arrays.copyOf(digest, 16));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
