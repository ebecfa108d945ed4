package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.StartupLines;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.core.tokens.SingleUseTokenException;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.spring.aop.RateLimitAdvisor;
import io.github.ratelimit.spring.servlet.RateLimitFilter;
import io.github.ratelimit.test.support.RawRedis;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;

/**
 * {@code ratelimit.enabled=false} switches rate limits off and nothing else: every bean an application injects is
 * still there, {@code @RateLimited} and filter rules limit nothing and make no Redis call, while {@code @SingleUse}
 * tokens stay single-use and {@code @Locked} methods stay locked.
 */
class DisabledModeTests {

    static final String PREFIX = "disabled-mode:";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    RateLimitRedissonAutoConfiguration.class,
                    RateLimitRedisAutoConfiguration.class,
                    RateLimitAutoConfiguration.class,
                    io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=" + SharedRedis.get().url(), "ratelimit.key-prefix=" + PREFIX)
            .withBean(Service.class);

    static class Service {
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch leave = new CountDownLatch(1);

        public CountDownLatch inside() {
            return inside;
        }

        public CountDownLatch leave() {
            return leave;
        }

        @RateLimited(limit = 1, windowMs = 60_000, key = "'one'")
        public String limited() {
            return "ok";
        }

        @SingleUse(purpose = "disabled-mode")
        public String spend(String token, TokenConsumption consumed) {
            return consumed.metadata().get("k");
        }

        @Locked(name = "disabled-mode", key = "'job'", leaseMs = 10_000)
        public long work(LockHandle lock) throws InterruptedException {
            inside.countDown();
            leave.await(10, TimeUnit.SECONDS);
            return lock.fencingToken();
        }
    }

    @Test
    void rateLimitsOffLeaveEveryBeanAndLimitNothingWithoutTouchingRedis() {
        runner.withPropertyValues("ratelimit.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(RateLimiter.class);
            assertThat(context).doesNotHaveBean(RedisRateLimiter.class);
            assertThat(context).doesNotHaveBean(RateLimitAdvisor.class);
            assertThat(context).hasSingleBean(SingleUseTokens.class);
            assertThat(context).hasSingleBean(LockManager.class);

            Service service = context.getBean(Service.class);
            for (int i = 0; i < 5; i++) {
                assertThat(service.limited()).isEqualTo("ok");
            }
            RateLimit limit =
                    RateLimit.of("direct", io.github.ratelimit.annotation.Algorithm.SLIDING_WINDOW, 1, 60_000);
            for (int i = 0; i < 3; i++) {
                assertThat(context.getBean(RateLimiter.class)
                                .tryAcquire(List.of(LimitRequest.of(limit, "u", 1)))
                                .allowed())
                        .isTrue();
            }
            assertThat(RawRedis.command(SharedRedis.get().port(), "KEYS", PREFIX + "*"))
                    .as("no rate limit key written")
                    .startsWith("*0");
        });
    }

    /** It said "0 limits on 0 methods" and "rate limits fail open", as if limits were on and none declared. */
    @Test
    void theStartupLineSaysRateLimitsAreOffAndWhatStillApplies() {
        runner.withPropertyValues("ratelimit.enabled=false").run(context -> {
            String line = StartupLines.of(context);
            assertThat(line)
                    .startsWith("Rate limiting: OFF (ratelimit.enabled=false)")
                    .contains("@SingleUse tokens and @Locked locks still apply")
                    .doesNotContain("0 limits on 0 methods")
                    .doesNotContain("while Redis cannot decide");
        });
        runner.run(context -> assertThat(StartupLines.of(context))
                .startsWith("Rate limiting: 1 limits on 1 methods, 0 filter limits;")
                .contains("while Redis cannot decide, rate limits are decided in memory, per instance"));
    }

    @Test
    void rateLimitsOffKeepTokensSingleUse() {
        runner.withPropertyValues("ratelimit.enabled=false").run(context -> {
            Service service = context.getBean(Service.class);
            String token = context.getBean(SingleUseTokens.class)
                    .issue("disabled-mode", Map.of("k", "v"), Duration.ofMinutes(1))
                    .token();
            assertThat(service.spend(token, null)).isEqualTo("v");
            assertThatThrownBy(() -> service.spend(token, null)).isInstanceOf(SingleUseTokenException.class);
        });
    }

    @Test
    void rateLimitsOffKeepLockedMethodsLocked() {
        runner.withPropertyValues("ratelimit.enabled=false").run(context -> {
            Service service = context.getBean(Service.class);
            CompletableFuture<Long> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return service.work(null);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(service.inside().await(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> service.work(null)).isInstanceOf(LockNotAcquiredException.class);
            service.leave().countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isPositive();
        });
    }

    @Test
    void rateLimitsOnEnforceTheSameAnnotation() {
        runner.withPropertyValues("ratelimit.key-prefix=on-" + java.util.UUID.randomUUID() + ":")
                .run(context -> {
                    assertThat(context).hasSingleBean(RedisRateLimiter.class);
                    Service service = context.getBean(Service.class);
                    assertThat(service.limited()).isEqualTo("ok");
                    assertThatThrownBy(service::limited).isInstanceOf(RateLimitExceededException.class);
                });
    }

    @Test
    void rateLimitsOffRegisterNoFilterForRules() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        WebMvcAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitWebAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitArgumentResolversAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.url=" + SharedRedis.get().url(),
                        "ratelimit.enabled=false",
                        "ratelimit.filter.rules[0].paths[0]=/api/**",
                        "ratelimit.filter.rules[0].limits[0].limit=1",
                        "ratelimit.filter.rules[0].limits[0].window=1m")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RateLimitFilter.class);
                    assertThat(context).hasBean("rateLimitArgumentResolverConfigurer");
                    assertThat(context).hasBean("singleUseTokenExceptionHandler");
                    assertThat(context).hasBean("lockExceptionHandler");
                });
    }
}
