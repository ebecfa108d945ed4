package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * What the health indicator reports: one slow answer is not an outage, three failed checks in a row are, and Redis
 * answering again ends it. The status itself stays up (the indicator's part); these are its details.
 */
class RedisHealthTest {

    RedisProcess redis;
    RedissonClient client;
    RedisConnector connector;

    @BeforeEach
    void start() {
        redis = RedisProcess.start();
        client = redis.newClient();
        // a breaker that does not open within this test: the checks alone decide "degraded"
        RedisGuard guard = new RedisGuard(redis.url(), Duration.ofMillis(300), 100, Duration.ofSeconds(30));
        connector = new RedisConnector(client, guard, Duration.ofSeconds(5), Duration.ofSeconds(1), List.of());
        connector.start();
        assertThat(connector.awaitFirstAttempt(Duration.ofSeconds(10))).isNull();
    }

    @AfterEach
    void stop() {
        try {
            redis.thaw();
        } catch (RuntimeException notFrozen) {
            // nothing to thaw
        }
        connector.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
        redis.close();
    }

    @Test
    void threeFailedChecksInARowAreAnOutageAndAnAnswerEndsIt() {
        Map<String, Object> healthy = connector.health("in memory");
        assertThat(healthy)
                .containsEntry("degraded", false)
                .containsEntry("decisions", "redis")
                .containsEntry("redis", redis.url())
                .containsEntry("circuitOpen", false)
                .containsKey("scriptsReloaded");

        redis.freeze();
        for (int failed = 1; failed <= 2; failed++) {
            assertThat(connector.health("in memory"))
                    .containsEntry("failedChecksInARow", failed)
                    .containsEntry("degraded", false)
                    .doesNotContainKey("decisions");
        }
        assertThat(connector.health("in memory"))
                .containsEntry("failedChecksInARow", 3)
                .containsEntry("degraded", true)
                .containsEntry("decisions", "in memory")
                .containsKey("error");

        redis.thaw();
        assertThat(connector.health("in memory"))
                .containsEntry("degraded", false)
                .containsEntry("decisions", "redis")
                .doesNotContainKey("failedChecksInARow");
    }

    @Test
    void beforeTheFirstConnectionTheLimiterIsDegradedAtOnce() {
        RedisGuard waiting =
                RedisGuard.awaitingConnection("redis://127.0.0.1:1", Duration.ofMillis(200), 5, Duration.ofSeconds(1));
        try (RedisConnector never =
                new RedisConnector(client, waiting, Duration.ofMillis(200), Duration.ofSeconds(1), List.of())) {
            assertThat(never.health("refused"))
                    .containsEntry("degraded", true)
                    .containsEntry("decisions", "refused")
                    .containsEntry("connected", false)
                    .containsEntry("redis", "redis://127.0.0.1:1");
        }
    }
}
