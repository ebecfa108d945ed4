package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.ConcurrencyLimited;
import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Metrics and an application's own listener are told what the limiter does, as events: decisions, tokens, locks (the
 * meters exist at zero from the start, for every declared limit). No
 * bean the application supplies is wrapped: the lock manager it gives is the one the context holds, and its events
 * are counted all the same.
 */
class RateLimitListenerTests {

    static class Service {
        @RateLimited(limit = 1, windowMs = 60_000, key = "#customer", name = "exports")
        public String export(String customer) {
            return "exported";
        }

        @Locked(name = "rebuild", key = "#customer")
        public String rebuild(String customer) {
            return "rebuilt";
        }

        @ConcurrencyLimited(name = "imports", max = 2, key = "#customer")
        public String importFor(String customer) {
            return "imported";
        }
    }

    /** An application's listener: writes down what it is told. */
    static final class Told implements RateLimitListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public Completion<Decision> deciding(List<LimitRequest> requests) {
            return ended(
                    "decision " + requests.get(0).limit().name(),
                    decision -> decision.allowed() ? "allowed" : "refused");
        }

        @Override
        public Completion<IssuedToken> issuingToken(String purpose) {
            return ended("issue " + purpose, issued -> "issued");
        }

        @Override
        public Completion<TokenConsumption> consumingToken(String purpose) {
            return ended("use " + purpose, used -> used.status().name());
        }

        @Override
        public Completion<LockHandle> acquiringLock(String name) {
            return ended("lock " + name, lock -> "acquired");
        }

        private <T> Completion<T> ended(String what, java.util.function.Function<T, String> outcome) {
            return new Completion<>() {
                @Override
                public void succeeded(T result) {
                    events.add(what + ": " + outcome.apply(result));
                }

                @Override
                public void failed(Throwable error) {
                    events.add(what + ": failed " + error.getClass().getSimpleName());
                }
            };
        }
    }

    /** The application's own lock manager, as a user would declare it. */
    @Configuration(proxyBeanMethods = false)
    static class OwnLocks {
        @Bean
        RedisLockManager applicationLocks(RedissonClient redisson) {
            return new RedisLockManager(
                    redisson,
                    "own-locks-" + UUID.randomUUID() + ":",
                    new io.github.ratelimit.redis.RedisGuard(
                            java.time.Duration.ofSeconds(5), 5, java.time.Duration.ofSeconds(1)));
        }
    }

    @Test
    void listenersAreToldAndTheApplicationsOwnBeanIsNotWrapped() {
        Told told = new Told();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.url=" + SharedRedis.get().url(),
                        "ratelimit.redis.require-at-startup=true",
                        "ratelimit.redis.connect-timeout=20s", // the first connection on a busy machine
                        "ratelimit.key-prefix=listened-" + UUID.randomUUID() + ":")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Told.class, () -> told)
                .withUserConfiguration(OwnLocks.class)
                .withBean(Service.class)
                .run(context -> {
                    assertThat(context.getBean(LockManager.class))
                            .isSameAs(context.getBean("applicationLocks"))
                            .isExactlyInstanceOf(RedisLockManager.class);

                    // the declared limit's decisions, tokens and locks are counted at zero before anything happened
                    MeterRegistry atStart = context.getBean(MeterRegistry.class);
                    assertThat(atStart.get("ratelimit.decisions")
                                    .tags("limit", "exports", "plan", "none", "outcome", "rejected")
                                    .counter()
                                    .count())
                            .isZero();
                    assertThat(atStart.get("ratelimit.tokens")
                                    .tags("operation", "consume", "outcome", "already_used")
                                    .counter()
                                    .count())
                            .isZero();
                    assertThat(atStart.get("ratelimit.locks.acquisitions")
                                    .tag("outcome", "busy")
                                    .counter()
                                    .count())
                            .isZero();
                    for (String outcome : List.of("acquired", "refused", "unavailable")) {
                        assertThat(atStart.get("ratelimit.concurrency")
                                        .tags("limit", "imports", "outcome", outcome)
                                        .counter()
                                        .count())
                                .as("the declared concurrency limit's %s slots", outcome)
                                .isZero();
                    }

                    Service service = context.getBean(Service.class);
                    String customer = "customer-" + UUID.randomUUID();
                    service.export(customer);
                    assertThatThrownBy(() -> service.export(customer)).isInstanceOf(RateLimitExceededException.class);
                    SingleUseTokens tokens = context.getBean(SingleUseTokens.class);
                    String token = tokens.issue("download", Map.of(), Duration.ofMinutes(1))
                            .token();
                    tokens.consume("download", token);
                    tokens.consume("download", token);
                    service.rebuild(customer);

                    assertThat(told.events)
                            .containsExactly(
                                    "decision exports: allowed",
                                    "decision exports: refused",
                                    "issue download: issued",
                                    "use download: CONSUMED",
                                    "use download: ALREADY_USED",
                                    "lock rebuild: acquired");
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get("ratelimit.locks.acquisitions")
                                    .tag("outcome", "acquired")
                                    .counter()
                                    .count())
                            .isEqualTo(1);
                    assertThat(meters.get("ratelimit.decisions")
                                    .tags("limit", "exports", "outcome", "rejected")
                                    .counter()
                                    .count())
                            .isEqualTo(1);
                });
    }
}
