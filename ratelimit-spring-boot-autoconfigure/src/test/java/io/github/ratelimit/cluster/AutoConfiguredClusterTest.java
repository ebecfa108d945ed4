package io.github.ratelimit.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.fixtures.SharedCluster;
import io.github.ratelimit.redis.RedisGuard;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The client the starter creates connects lazily to a real Redis Cluster from spring.data.redis.cluster.nodes. */
class AutoConfiguredClusterTest {

    @Test
    void theStartersLazyClientFindsTheClusterAndDecides() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.cluster.nodes=" + SharedCluster.get().nodes(),
                        "ratelimit.redis.connect-timeout=3s")
                .run(context -> {
                    RedisGuard guard = context.getBean(RedisGuard.class);
                    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                    while (!guard.isConnected()) {
                        assertThat(System.nanoTime() - deadline)
                                .as("connected to the cluster")
                                .isNegative();
                        Thread.sleep(10);
                    }
                    assertThat(guard.target()).startsWith("cluster ");
                    RateLimit limit = RateLimit.of("auto-cluster", Algorithm.SLIDING_WINDOW, 2, 60_000);
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    for (int user = 0; user < 20; user++) { // identifiers spread over the masters' slots
                        String id = "u-" + UUID.randomUUID();
                        assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, id, 2)))
                                        .allowed())
                                .isTrue();
                        assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, id, 1)))
                                        .allowed())
                                .isFalse();
                    }
                    SingleUseTokens tokens = context.getBean(SingleUseTokens.class);
                    String token = tokens.issue("auto-cluster", Map.of(), Duration.ofMinutes(1))
                            .token();
                    assertThat(tokens.consume("auto-cluster", token).metadata()).isEmpty();
                });
    }
}
