package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.decision.Fallbacks;
import io.github.ratelimit.test.support.RedisProcess;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * With Redis gone: rate limits are decided in memory (the default), fail open (counted) or closed as declared; tokens
 * and locks always fail closed.
 */
class FailPolicyTest {

    static class Service {
        final AtomicInteger runs = new AtomicInteger();

        @RateLimited(limit = 1, windowMs = 60_000, key = "'k'")
        public int byDefault() {
            return runs.incrementAndGet();
        }

        @RateLimited(limit = 1, windowMs = 60_000, key = "'k'", failureMode = FailureMode.OPEN)
        public int open() {
            return runs.incrementAndGet();
        }

        @RateLimited(limit = 1, windowMs = 60_000, key = "'k'", failureMode = FailureMode.CLOSED)
        public int closed() {
            return runs.incrementAndGet();
        }

        @SingleUse(purpose = "p")
        public int token(String token) {
            return runs.incrementAndGet();
        }

        @Locked(key = "'job'")
        public int locked() {
            return runs.incrementAndGet();
        }

        public int runs() {
            return runs.get();
        }
    }

    @Test
    void redisGoneAfterStartup() {
        try (RedisProcess redis = RedisProcess.start()) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(
                            AopAutoConfiguration.class,
                            RateLimitRedissonAutoConfiguration.class,
                            RateLimitRedisAutoConfiguration.class,
                            RateLimitAutoConfiguration.class,
                            io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class))
                    .withPropertyValues("spring.data.redis.url=" + redis.url())
                    .withBean(Service.class)
                    .run(context -> {
                        Service service = context.getBean(Service.class);
                        redis.crash();

                        assertThat(service.open()).isEqualTo(1);
                        assertThat(service.open()).isEqualTo(2); // over the limit, but unchecked: fail-open
                        assertThatThrownBy(service::closed).isInstanceOf(RedisUnavailableException.class);
                        assertThatThrownBy(() -> service.token("A".repeat(32)))
                                .isInstanceOf(RedisUnavailableException.class);
                        assertThatThrownBy(service::locked).isInstanceOf(RedisUnavailableException.class);
                        assertThat(service.byDefault()).isEqualTo(3); // local: one instance, the whole limit
                        assertThatThrownBy(service::byDefault)
                                .isInstanceOf(RateLimitExceededException.class)
                                .satisfies(e -> assertThat(((RateLimitExceededException) e)
                                                .decision()
                                                .retryAfter())
                                        .isPositive());
                        assertThat(service.runs()).isEqualTo(3);
                        Fallbacks fallbacks = context.getBean(Fallbacks.class);
                        assertThat(fallbacks.failedOpen()).isEqualTo(2);
                        assertThat(fallbacks.failedClosed()).isEqualTo(1);
                        assertThat(fallbacks.decidedLocally()).isEqualTo(2);
                    });
        }
    }

    @Test
    void theApplicationWideModeAppliesToLimitsThatLeaveItToTheApplication() {
        try (RedisProcess redis = RedisProcess.start()) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(
                            AopAutoConfiguration.class,
                            RateLimitRedissonAutoConfiguration.class,
                            RateLimitRedisAutoConfiguration.class,
                            RateLimitAutoConfiguration.class,
                            io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class))
                    .withPropertyValues("spring.data.redis.url=" + redis.url(), "ratelimit.failure-mode=closed")
                    .withBean(Service.class)
                    .run(context -> {
                        redis.crash();
                        Service service = context.getBean(Service.class);
                        assertThatThrownBy(service::byDefault).isInstanceOf(RedisUnavailableException.class);
                        assertThat(service.open()).as("a limit's own mode wins").isEqualTo(1);
                    });
        }
    }
}
