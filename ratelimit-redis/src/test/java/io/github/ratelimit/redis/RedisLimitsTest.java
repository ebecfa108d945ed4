package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.fixtures.Stalls;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import io.github.ratelimit.test.support.RawRedis;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** Memory full, hostile input at volume, and a least-privilege ACL user, on real redis-server processes. */
class RedisLimitsTest {

    static long usedMemory(int port) {
        String info = RawRedis.command(port, "INFO", "memory");
        int at = info.indexOf("used_memory:");
        return Long.parseLong(info.substring(at + 12, info.indexOf('\r', at)).trim());
    }

    /** With noeviction and memory full, every primitive follows its fail policy in time and no key lacks a TTL. */
    @Test
    void memoryFullFollowsTheFailPolicyAndLeavesNoKeyWithoutTtl() {
        try (RedisProcess redis = RedisProcess.start(List.of("maxmemory-policy noeviction"))) {
            RedissonClient client = redis.newClient();
            try {
                RedisGuard guard = new RedisGuard(Stalls.budget(Duration.ofMillis(200)), 1_000, Duration.ZERO);
                RedisRateLimiter limiter = new RedisRateLimiter(client, "oom:", guard);
                RedisSingleUseTokens tokens = new RedisSingleUseTokens(client, "oom:", guard);
                RedisLockManager locks = new RedisLockManager(client, "oom:", guard);
                RateLimit limit = RateLimit.of("oom", Algorithm.SLIDING_WINDOW, 100, 60_000);
                limiter.tryAcquire(List.of(LimitRequest.of(limit, "warm-up", 1)));
                // memory full: the limit is below what Redis already uses, so every write is refused (noeviction)
                RawRedis.command(
                        redis.port(), "CONFIG", "SET", "maxmemory", Long.toString(usedMemory(redis.port()) / 2));
                assertThat(RawRedis.command(redis.port(), "SET", "foreign", "x"))
                        .startsWith("-OOM");

                List<Long> millis = new ArrayList<>();
                Stalls stalls = Stalls.watch();
                for (int i = 0; i < 20; i++) {
                    long started = System.nanoTime();
                    assertThatThrownBy(() ->
                                    limiter.tryAcquire(List.of(LimitRequest.of(limit, "user-" + System.nanoTime(), 1))))
                            .isInstanceOf(RedisUnavailableException.class)
                            .hasMessageContaining("maxmemory");
                    millis.add((System.nanoTime() - started) / 1_000_000);
                }
                assertThatThrownBy(() -> tokens.issue("oom", Map.of(), Duration.ofMinutes(1)))
                        .isInstanceOf(RedisUnavailableException.class);
                assertThatThrownBy(() -> locks.tryAcquire("job", LockOptions.lease(Duration.ofSeconds(5))))
                        .isInstanceOf(RedisUnavailableException.class);
                stalls.close();
                System.out.printf(
                        "OOM: worst %d ms, %s%n",
                        millis.stream().mapToLong(Long::longValue).max().orElse(0), stalls);
                assertThat(millis).as("answers to a full Redis, %s", stalls).allSatisfy(ms -> assertThat(ms)
                        .isLessThanOrEqualTo(stalls.allowing(500)));

                List<Object> keys = RedisCommands.call(client, "KEYS", "oom:*");
                assertThat(keys).isNotEmpty();
                for (Object key : keys) {
                    assertThat(RedisCommands.<Long>call(client, "PTTL", key))
                            .as("TTL of %s", key)
                            .isPositive();
                }
                locks.close();
            } finally {
                client.shutdown();
            }
        }
    }

    /** 100,000 distinct hostile identifiers: bounded memory per identifier, every key with a TTL within its window (an hour, so that a slow run loses none to expiry before they are counted). */
    @Test
    void hostileIdentifiersAtVolumeStayBounded() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient client = redis.newClient();
            try {
                RedisRateLimiter limiter = new RedisRateLimiter(client, "hostile:", Guards.patient());
                // a window longer than any run of this test takes, so that no key expires before it is counted
                RateLimit limit = RateLimit.of("hostile", Algorithm.SLIDING_WINDOW, 10, 3_600_000);
                String eightKb = "{x}\n".repeat(2048);
                long before = usedMemory(redis.port());
                int threads = 16;
                int perThread = 100_000 / threads;
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    futures.add(pool.submit(() -> {
                        for (int i = 0; i < perThread; i++) {
                            String id = (i % 100 == 0 ? eightKb : "}{\r\n") + thread + ":" + i;
                            limiter.tryAcquire(List.of(LimitRequest.of(limit, id, 1)));
                        }
                        return null;
                    }));
                }
                for (Future<?> future : futures) {
                    future.get(300, TimeUnit.SECONDS);
                }
                pool.shutdown();
                long keys = Long.parseLong(
                        RawRedis.command(redis.port(), "DBSIZE").substring(1).trim());
                long perKey = (usedMemory(redis.port()) - before) / keys;
                System.out.printf("100k hostile identifiers: %d keys, %d bytes per key%n", keys, perKey);

                assertThat(keys).isEqualTo(threads * perThread);
                assertThat(perKey).isLessThan(250);
                String sample = RedisCommands.call(client, "RANDOMKEY");
                for (int i = 0; i < 200; i++) {
                    Object key = RedisCommands.call(client, "RANDOMKEY");
                    assertThat(key.toString()).matches("hostile:v5:\\{[A-Za-z0-9_-]{22}\\}:hostile:sw/3600000");
                    assertThat(RedisCommands.<Long>call(client, "PTTL", key)).isBetween(1L, 3_600_000L * 9 / 8);
                }
                assertThat(sample).doesNotContain("\n");
            } finally {
                client.shutdown();
            }
        }
    }
}
