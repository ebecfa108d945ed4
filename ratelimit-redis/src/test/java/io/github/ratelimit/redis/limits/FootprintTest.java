package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.internal.RedisKeys;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Redis memory per key ({@code MEMORY USAGE}) of each algorithm once its window is full, next to the naive
 * exact sliding window (a sorted set of every admission), and the Redis commands one decision runs. Prints
 * the figures quoted in docs/benchmarks.md.
 */
class FootprintTest {

    static RedissonClient client;
    static RedisRateLimiter limiter;

    @BeforeAll
    static void start() {
        client = SharedRedis.get().newClient();
        // a measurement, not a test of budgets: a busy machine must not turn a slow answer into a failure
        limiter = new RedisRateLimiter(client, "footprint:", Guards.patient());
    }

    @AfterAll
    static void stop() {
        client.shutdown();
    }

    @Test
    void slidingWindowRingIsSmallerThanASortedSetLogAndOthersAreConstant() {
        StringBuilder report = new StringBuilder("\nMEMORY USAGE per key, window full (bytes)\n");
        report.append(String.format(
                "%-8s %10s %10s %10s %12s %8s%n", "limit", "sliding", "fixed", "bucket", "zset log", "ratio"));
        for (int limit : List.of(5, 100, 1_000, 10_000)) {
            Map<Algorithm, Long> bytes = new TreeMap<>();
            for (Algorithm algorithm : Algorithm.values()) {
                bytes.put(algorithm, fill(algorithm, limit));
            }
            long zset = naiveSortedSetLog(limit);
            report.append(String.format(
                    "%-8d %10d %10d %10d %12d %7.1fx%n",
                    limit,
                    bytes.get(Algorithm.SLIDING_WINDOW),
                    bytes.get(Algorithm.FIXED_WINDOW),
                    bytes.get(Algorithm.TOKEN_BUCKET),
                    zset,
                    (double) zset / bytes.get(Algorithm.SLIDING_WINDOW)));
            assertThat(bytes.get(Algorithm.SLIDING_WINDOW)).isLessThan(zset);
            assertThat(bytes.get(Algorithm.SLIDING_WINDOW)).isLessThanOrEqualTo(200L + 7L * limit);
            assertThat(bytes.get(Algorithm.FIXED_WINDOW)).isLessThan(120);
            assertThat(bytes.get(Algorithm.TOKEN_BUCKET)).isLessThan(120);
        }
        System.out.println(report);
    }

    @Test
    void commandsRunInsideOneDecision() {
        StringBuilder report = new StringBuilder("\nRedis commands per decision (1 EVALSHA on the wire)\n");
        for (Algorithm algorithm : Algorithm.values()) {
            for (int limit : List.of(10, 1_000)) {
                RateLimit rateLimit = RateLimit.of("cmds", algorithm, limit, 3_600_000);
                String id = UUID.randomUUID().toString();
                limiter.tryAcquire(List.of(LimitRequest.of(rateLimit, id, 1)));
                Map<String, Long> before = stats();
                limiter.tryAcquire(List.of(LimitRequest.of(rateLimit, id, 1)));
                Map<String, Long> after = stats();
                Map<String, Long> delta = new TreeMap<>();
                after.forEach((command, calls) -> {
                    long d = calls - before.getOrDefault(command, 0L);
                    if (d > 0) {
                        delta.put(command, d);
                    }
                });
                delta.remove("info"); // our own measurement
                assertThat(delta.get("evalsha")).isEqualTo(1);
                report.append(String.format("%-15s limit %-5d %s%n", algorithm, limit, delta));
            }
        }
        System.out.println(report);
    }

    private static Map<String, Long> stats() {
        Map<String, Long> calls = new TreeMap<>();
        for (String command : List.of(
                "evalsha", "eval", "time", "get", "set", "getrange", "setrange", "pexpire", "pttl", "incrby", "info")) {
            calls.put(command, RedisCommands.commandCalls(client, command));
        }
        return calls;
    }

    private static long fill(Algorithm algorithm, int limit) {
        RateLimit rateLimit = RateLimit.of("mem", algorithm, limit, 3_600_000);
        String id = UUID.randomUUID().toString();
        int admitted = 0;
        int chunk = Math.max(1, limit / 10);
        while (admitted < limit) {
            long cost = Math.min(chunk, limit - admitted);
            assertThat(limiter.tryAcquire(List.of(LimitRequest.of(rateLimit, id, cost)))
                            .allowed())
                    .isTrue();
            admitted += (int) cost;
        }
        String key = new RedisKeys("footprint:").rateLimitKey(rateLimit, RedisKeys.tag(id));
        return memoryUsage(key);
    }

    /** The usual exact sliding log: ZADD now member, one unique member per admission. */
    private static long naiveSortedSetLog(int limit) {
        String key = "footprint:zset:" + UUID.randomUUID();
        long now = RedisCommands.timeMs(client);
        for (int i = 0; i < limit; i++) {
            RedisCommands.call(client, "ZADD", key, now + i, (now + i) + "-" + i);
        }
        return memoryUsage(key);
    }

    private static long memoryUsage(String key) {
        Object usage = RedisCommands.call(client, "MEMORY", "USAGE", key, "SAMPLES", "0");
        return Long.parseLong(String.valueOf(usage instanceof List<?> list ? list.get(0) : usage));
    }
}
