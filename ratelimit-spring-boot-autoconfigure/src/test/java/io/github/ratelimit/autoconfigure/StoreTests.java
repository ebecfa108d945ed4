package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.ConcurrencyLimited;
import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.autoconfigure.memory.RateLimitMemoryAutoConfiguration;
import io.github.ratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.core.tokens.SingleUseTokenException;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.fixtures.Causes;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.local.LocalRateLimiter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Where rate limits are counted ({@code ratelimit.store}): the auto-configuration works without the Redis module
 * (and Redisson) on the class path, in memory when the application says so and announced with a WARN; it fails the
 * start, naming both ways out, when it would need Redis and cannot have it; and memory is never chosen silently.
 */
@ExtendWith(OutputCaptureExtension.class)
class StoreTests {

    public static class Service {
        @RateLimited(limit = 3, windowMs = 60_000, key = "'one'")
        public String limited() {
            return "ok";
        }
    }

    public static class Annotated {
        final java.util.concurrent.atomic.AtomicInteger digests = new java.util.concurrent.atomic.AtomicInteger();

        @Locked(name = "digest", minHoldMs = 60_000)
        public void digest() {
            digests.incrementAndGet();
        }

        public int digests() {
            return digests.get();
        }

        @SingleUse(purpose = "spawn", token = "#token")
        public String spawn(String token) {
            return "spawned";
        }

        @ConcurrencyLimited(max = 1, key = "'one'", name = "slow")
        public String slow(java.util.concurrent.CountDownLatch inside, java.util.concurrent.CountDownLatch go)
                throws InterruptedException {
            inside.countDown();
            go.await();
            return "done";
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    RateLimitRedissonAutoConfiguration.class,
                    RateLimitRedisAutoConfiguration.class,
                    RateLimitMemoryAutoConfiguration.class,
                    RateLimitAutoConfiguration.class,
                    RateLimitMetricsAutoConfiguration.class,
                    io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class))
            .withBean(Service.class);

    /** Neither the Redis module nor Redisson can be loaded. */
    private final ApplicationContextRunner withoutRedis =
            runner.withClassLoader(new FilteredClassLoader("io.github.ratelimit.redis", "org.redisson"));

    private static List<String> threeThenFour(Service service) {
        List<String> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            try {
                answers.add(service.limited());
            } catch (RateLimitExceededException e) {
                answers.add("429");
            }
        }
        return answers;
    }

    @Test
    void withoutTheRedisModuleTheMemoryStoreLimitsAndSaysSo(CapturedOutput output) {
        withoutRedis.withPropertyValues("ratelimit.store=memory").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RateLimiter.class)).isInstanceOf(LocalRateLimiter.class);
            assertThat(context).doesNotHaveBean("rateLimitRedissonClient");
            assertThat(threeThenFour(context.getBean(Service.class))).containsExactly("ok", "ok", "ok", "429");
        });
        assertThat(output.getOut())
                .contains("WARN")
                .contains("single-use tokens, locks and concurrency limits are kept in this instance's memory"
                        + " (ratelimit.store=memory)");
    }

    /**
     * Without the Redis module, in memory: a lock taken by a method stays taken for its minimum hold and is listed, a
     * token works once, a concurrency limit of one refuses a second call in progress.
     */
    @Test
    void everyAnnotationWorksInMemoryWithoutTheRedisModule() {
        withoutRedis
                .withPropertyValues("ratelimit.store=memory")
                .withBean(Annotated.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Annotated annotated = context.getBean(Annotated.class);

                    annotated.digest();
                    assertThatThrownBy(annotated::digest).isInstanceOf(LockNotAcquiredException.class);
                    assertThat(annotated.digests()).as("runs").isEqualTo(1);
                    assertThat(context.getBean(LockManager.class).heldLocks(10))
                            .extracting(LockManager.HeldLock::name)
                            .containsExactly("digest");

                    String token = context.getBean(SingleUseTokens.class)
                            .issue("spawn", java.util.Map.of(), java.time.Duration.ofMinutes(1))
                            .token();
                    assertThat(annotated.spawn(token)).isEqualTo("spawned");
                    assertThatThrownBy(() -> annotated.spawn(token))
                            .isInstanceOfSatisfying(SingleUseTokenException.class, e -> assertThat(e.status())
                                    .isEqualTo(SingleUseTokens.TokenConsumption.Status.ALREADY_USED));

                    java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
                    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
                    java.util.concurrent.CompletableFuture<String> first =
                            java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                                try {
                                    return annotated.slow(inside, go);
                                } catch (InterruptedException e) {
                                    throw new IllegalStateException(e);
                                }
                            });
                    assertThat(inside.await(10, java.util.concurrent.TimeUnit.SECONDS))
                            .isTrue();
                    assertThatThrownBy(() -> annotated.slow(new java.util.concurrent.CountDownLatch(1), go))
                            .isInstanceOf(ConcurrencyLimitExceededException.class);
                    go.countDown();
                    assertThat(first.get(10, java.util.concurrent.TimeUnit.SECONDS))
                            .isEqualTo("done");
                });
    }

    /** An application's own rate limiter alone serves no lock: a @Locked method fails the start, named. */
    @Test
    void anAnnotationNoStoreServesFailsTheStartNamingItsMethod() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        RateLimitMetricsAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class))
                .withBean(RateLimiter.class, () -> new LocalRateLimiter(100))
                .withBean(Annotated.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(Causes.messages(context.getStartupFailure()))
                            .contains("Invalid @")
                            .contains("no ")
                            .contains("bean serves it")
                            .containsAnyOf("Annotated.digest", "Annotated.spawn", "Annotated.slow");
                });
    }

    @Test
    void rateLimitsOffInMemoryLimitNothing() {
        withoutRedis
                .withPropertyValues("ratelimit.store=memory", "ratelimit.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RateLimiter.class)).isNotInstanceOf(LocalRateLimiter.class);
                    assertThat(threeThenFour(context.getBean(Service.class))).containsExactly("ok", "ok", "ok", "ok");
                });
    }

    @Test
    void withoutTheRedisModuleAndWithoutChoosingMemoryTheStartFailsNamingBothWaysOut() {
        withoutRedis.run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            assertThat(Causes.messages(failure))
                    .contains("ratelimit.store is redis (the default)")
                    .contains("io.github.ratelimit:ratelimit-redis");
        });
    }

    @Test
    void memoryChosenWithRedisAroundMakesNoRedisClient(CapturedOutput output) {
        runner.withPropertyValues(
                        "ratelimit.store=memory",
                        "spring.data.redis.url=" + SharedRedis.get().url())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RedissonClient.class);
                    assertThat(context.getBean(RateLimiter.class)).isInstanceOf(LocalRateLimiter.class);
                    assertThat(threeThenFour(context.getBean(Service.class))).containsExactly("ok", "ok", "ok", "429");
                });
        assertThat(output.getOut()).contains("ratelimit.store=memory");
    }

    @Test
    void redisIsTheDefaultStoreAndMemoryIsNeverChosenForAnApplication() {
        runner.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", "ratelimit.key-prefix=store-default:")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RateLimiter.class)).isNotInstanceOf(LocalRateLimiter.class);
                    assertThat(context).hasSingleBean(RedissonClient.class);
                });
        runner.withPropertyValues("ratelimit.store=disk")
                .run(context ->
                        assertThat(Causes.messages(context.getStartupFailure())).contains("ratelimit.store"));
    }
}
