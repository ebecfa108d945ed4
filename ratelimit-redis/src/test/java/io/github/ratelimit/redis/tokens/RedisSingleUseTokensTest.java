package io.github.ratelimit.redis.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.redis.limits.RedisRateLimiterTest;
import io.github.ratelimit.test.support.RawRedis;
import io.github.ratelimit.test.support.RedisProcess;
import io.github.ratelimit.test.support.RedisTopology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** Single-use tokens on a single Redis (with AOF), plus what only a single server shows: MONITOR, a crash. */
public class RedisSingleUseTokensTest extends SingleUseTokensContract {

    static RedisProcess redis = RedisProcess.start(List.of("appendonly yes", "appendfsync always"));

    @Override
    RedisTopology topology() {
        return redis;
    }

    @AfterAll
    void stopRedis() {
        redis.close();
    }

    @Test
    void theRawTokenNeverReachesRedisNorItsMonitor() {
        List<IssuedToken> issued = new ArrayList<>();
        try (RawRedis monitor = RawRedis.monitor(redis.port())) {
            for (int i = 0; i < 20; i++) {
                IssuedToken token = instanceA.issue("secret", Map.of("i", Integer.toString(i)), Duration.ofMinutes(5));
                issued.add(token);
                instanceB.consume("secret", token.token());
                instanceB.release("secret", token.token());
            }
            String seen = monitor.seen();
            assertThat(seen).contains("tok:secret");
            issued.forEach(token -> assertThat(seen).doesNotContain(token.token()));
        }
        StringBuilder everything = new StringBuilder();
        List<Object> keys = RedisCommands.call(clientA, "KEYS", "*");
        for (Object key : keys) {
            everything.append(key).append('\n');
            if (RedisCommands.<String>call(clientA, "TYPE", key).equals("hash")) {
                everything
                        .append(RedisCommands.<Object>call(clientA, "HGETALL", key))
                        .append('\n');
            }
        }
        assertThat(keys).hasSizeGreaterThanOrEqualTo(20);
        issued.forEach(token -> assertThat(everything).doesNotContain(token.token()));
    }

    @Test
    void everyTokenKeyHasATtl() {
        instanceA.issue("ttl-check", Map.of(), Duration.ofMinutes(1), 3);
        List<Object> keys = RedisCommands.call(clientA, "KEYS", "ratelimit:*:tok:ttl-check");
        assertThat(keys).isNotEmpty();
        for (Object key : keys) {
            assertThat(RedisCommands.<Long>call(clientA, "PTTL", key)).isBetween(1L, 60_000L);
        }
    }

    @Test
    void aConsumedTokenStaysUsedAfterACrashWithAof() {
        IssuedToken used = instanceA.issue("durable", Map.of(), Duration.ofMinutes(5));
        IssuedToken unused = instanceA.issue("durable", Map.of("k", "v"), Duration.ofMinutes(5));
        assertThat(instanceA.consume("durable", used.token()).consumed()).isTrue();

        redis.crashAndRestart();
        awaitReconnected(clientA);

        assertThat(instanceA.consume("durable", used.token()).status()).isEqualTo(Status.ALREADY_USED);
        assertThat(instanceA.consume("durable", unused.token()).metadata()).isEqualTo(Map.of("k", "v"));
    }

    public static void awaitReconnected(RedissonClient client) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!RedisRateLimiterTest.pings(client)) {
            assertThat(System.nanoTime()).as("reconnected within 20 s").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
