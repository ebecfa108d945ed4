package io.github.ratelimit.autoconfigure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.fixtures.SharedRedis;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A start that fails after the limiter's Redis client was made (here: an application bean that throws) leaves no
 * client behind: it is shut down with the failed context, so no Netty thread of it outlives the start (Tomcat would
 * warn of each).
 */
class FailedStartTest {

    static final AtomicReference<RedissonClient> made = new AtomicReference<>();

    @Configuration(proxyBeanMethods = false)
    static class FailingApplication {
        @Bean
        Object failsOnceTheClientIsMade(RedissonClient redisson) {
            made.set(redisson);
            redisson.getBucket("ratelimit-failed-start").isExists(); // the client's threads are running
            throw new IllegalStateException("the application cannot start");
        }
    }

    @Test
    void theClientMadeForAFailedContextIsShutDown() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class))
                .withUserConfiguration(FailingApplication.class)
                .withPropertyValues("spring.data.redis.url=" + SharedRedis.get().url())
                .run(context -> assertThat(context).hasFailed());

        assertThat(made.get()).isNotNull();
        assertThat(made.get().isShutdown()).isTrue();
    }
}
