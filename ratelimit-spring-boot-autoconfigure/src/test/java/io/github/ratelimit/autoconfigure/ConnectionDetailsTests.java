package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.test.support.RedisProcess;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Spring Boot's Redis connection-details bean (what Testcontainers' {@code @ServiceConnection} and Docker Compose
 * support define) redirects the starter, over {@code spring.data.redis.*}; an application's own RedissonClient still
 * wins. Against a real embedded redis-server, since there is no Docker here.
 */
class ConnectionDetailsTests {

    private final int deadPort = RedisProcess.freePort();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    RateLimitRedissonAutoConfiguration.class,
                    RateLimitRedisAutoConfiguration.class,
                    RateLimitAutoConfiguration.class,
                    io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=redis://127.0.0.1:" + deadPort);

    @Test
    void aConnectionDetailsBeanWinsOverTheProperties() {
        DataRedisConnectionDetails details = new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of("127.0.0.1", SharedRedis.get().port());
            }
        };
        runner.withBean(DataRedisConnectionDetails.class, () -> details).run(context -> {
            RedisGuard guard = context.getBean(RedisGuard.class);
            assertThat(guard.target())
                    .isEqualTo("redis://127.0.0.1:" + SharedRedis.get().port());
            StartWithoutRedis.awaitConnected(guard);
            RateLimit limit = RateLimit.of("details", Algorithm.FIXED_WINDOW, 1, 60_000);
            String id = java.util.UUID.randomUUID().toString();
            RateLimiter limiter = context.getBean(RateLimiter.class);
            assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, id, 1)))
                            .allowed())
                    .isTrue();
            assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, id, 1)))
                            .allowed())
                    .isFalse();
        });
    }

    @Test
    void withoutConnectionDetailsThePropertiesAreUsed() {
        runner.run(context ->
                assertThat(context.getBean(RedisGuard.class).target()).isEqualTo("redis://127.0.0.1:" + deadPort));
    }

    @Test
    void anApplicationsOwnClientWinsOverConnectionDetails() {
        RedissonClient own = SharedRedis.get().newClient();
        try {
            runner.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {
                        @Override
                        public Standalone getStandalone() {
                            return Standalone.of("127.0.0.1", deadPort);
                        }
                    })
                    .withBean("myRedisson", RedissonClient.class, () -> own)
                    .run(context -> {
                        assertThat(context.getBean(RedissonClient.class)).isSameAs(own);
                        assertThat(context.getBean(RedisGuard.class).isConnected())
                                .isTrue();
                    });
        } finally {
            own.shutdown();
        }
    }

    /** Polls with a deadline for the background connection. */
    static final class StartWithoutRedis {
        static void awaitConnected(RedisGuard guard) throws InterruptedException {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!guard.isConnected()) {
                assertThat(System.nanoTime() - deadline)
                        .as("connected within 10 s")
                        .isNegative();
                Thread.sleep(10);
            }
        }
    }
}
