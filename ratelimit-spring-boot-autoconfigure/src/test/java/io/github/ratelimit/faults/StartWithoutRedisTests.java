package io.github.ratelimit.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.health.RateLimitHealthAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.fixtures.Causes;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.fixtures.Stalls;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.test.kit.Poll;
import io.github.ratelimit.test.support.RawRedis;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The application starts and serves whatever state Redis is in, and decides exactly once Redis answers, with no
 * restart. Real redis-server processes: a port nobody listens on yet, a frozen server (SIGSTOP), a shared server
 * under a busy CPU. Start times are printed (one run's figures are in docs/benchmarks.md).
 */
@ExtendWith(OutputCaptureExtension.class)
class StartWithoutRedisTests {

    static final Duration BUDGET = Duration.ofMillis(200);

    /** Where the CPU burners leave their result. */
    static volatile long burned;
    /** A fallback answer comes from the guard without touching Redis: well within the budget. */
    static final long FALLBACK_BOUND_MS = BUDGET.toMillis();

    ApplicationContextRunner runner(String url) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitHealthAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.url=" + url,
                        "ratelimit.key-prefix=start-" + UUID.randomUUID() + ":",
                        "ratelimit.redis.connect-timeout=1s");
    }

    /** This machine's stalls while a test runs: a start's time is bounded by 5 s plus what the machine lost. */
    private final Stalls stalls = Stalls.watch();

    @AfterEach
    void stopWatching() {
        stalls.close();
    }

    @Test
    void startsWithTheServerRefusingAndIsExactAcrossTwoInstancesOnceItAppears(CapturedOutput output) {
        int port = RedisProcess.freePort();
        ApplicationContextRunner runner = runner("redis://127.0.0.1:" + port);
        long[] startMs = new long[2];
        long started = System.nanoTime();
        runner.run(a -> {
            startMs[0] = elapsedMs(started);
            long second = System.nanoTime();
            runner.run(b -> {
                startMs[1] = elapsedMs(second);
                System.out.printf("start with Redis refused: %d ms and %d ms%n", startMs[0], startMs[1]);
                assertThat(a).hasNotFailed();
                assertThat(b).hasNotFailed();
                answeredWithoutRedisWithinTheBudget(a);

                try (RedisProcess redis = RedisProcess.startOn(port, List.of())) {
                    long appeared = System.nanoTime();
                    awaitConnected(a, b);
                    System.out.printf("decisions exact again %d ms after Redis appeared%n", elapsedMs(appeared));
                    assertExactAcross(a.getBean(RateLimiter.class), b.getBean(RateLimiter.class), 5);
                }
            });
        });
        assertThat(startMs[0]).as("start, %s", stalls).isLessThan(stalls.allowing(5_000));
        assertThat(startMs[1]).as("start, %s", stalls).isLessThan(stalls.allowing(5_000));
        assertThat(count(output.getOut(), "is unavailable (connection refused")).isEqualTo(2);
        assertThat(output.getOut()).contains("answers again");
    }

    @Test
    void startsWhileTheServerIsFrozenAndIsExactOnceItContinues() {
        RedisProcess redis = RedisProcess.start();
        try {
            redis.freeze();
            long started = System.nanoTime();
            runner(redis.url()).run(context -> {
                long startMs = elapsedMs(started);
                System.out.printf("start with Redis frozen (SIGSTOP): %d ms%n", startMs);
                assertThat(context).hasNotFailed();
                assertThat(startMs).as("start, %s", stalls).isLessThan(stalls.allowing(5_000));
                answeredWithoutRedisWithinTheBudget(context);
                redis.thaw();
                awaitConnected(context);
                RateLimiter limiter = context.getBean(RateLimiter.class);
                assertExactAcross(limiter, limiter, 3);
            });
        } finally {
            redis.thaw();
            redis.close();
        }
    }

    @Test
    void startsWithRedisUpAsTheBaseline() {
        long started = System.nanoTime();
        runner(SharedRedis.get().url()).run(context -> {
            System.out.printf("start with Redis up: %d ms%n", elapsedMs(started));
            assertThat(context.getBean(RedisGuard.class).isConnected()).isTrue();
        });
    }

    /**
     * No bean method connects or waits: once every bean is made (a user's {@link SmartInitializingSingleton} runs
     * then) Redis has not been asked anything yet; the first connection is made as the context starts, before it is
     * handed to the application.
     */
    @Test
    void theBeansAreMadeWithoutConnectingAndTheContextsStartConnects() {
        AtomicReference<String> whenTheBeansWereMade = new AtomicReference<>();
        runner(SharedRedis.get().url())
                .withBean(GuardAfterTheBeans.class, () -> new GuardAfterTheBeans(whenTheBeansWereMade))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(whenTheBeansWereMade.get()).contains("not connected yet");
                    assertThat(context.getBean(RedisGuard.class).isConnected()).isTrue();
                });
    }

    /** Reads the guard's state when every singleton exists, before the context starts its lifecycle beans. */
    static final class GuardAfterTheBeans implements SmartInitializingSingleton, BeanFactoryAware {
        private final AtomicReference<String> seen;
        private BeanFactory beans;

        GuardAfterTheBeans(AtomicReference<String> seen) {
            this.seen = seen;
        }

        @Override
        public void setBeanFactory(BeanFactory beanFactory) {
            this.beans = beanFactory;
        }

        @Override
        public void afterSingletonsInstantiated() {
            seen.set(beans.getBean(RedisGuard.class).state());
        }
    }

    @Test
    void startsWithAWrongPassword() {
        try (RedisProcess redis = RedisProcess.start()) {
            assertThat(RawRedis.command(redis.port(), "CONFIG", "SET", "requirepass", "s3cret"))
                    .startsWith("+OK");
            long started = System.nanoTime();
            runner("redis://:wrong@127.0.0.1:" + redis.port()).run(context -> {
                long startMs = elapsedMs(started);
                System.out.printf("start with a wrong password: %d ms%n", startMs);
                assertThat(context).hasNotFailed();
                assertThat(startMs).as("start, %s", stalls).isLessThan(stalls.allowing(5_000));
                answeredWithoutRedisWithinTheBudget(context);
                assertThat(context.getBean(RedisGuard.class).lastError()).contains("spring.data.redis.password");
            });
        }
    }

    @Test
    void startsWithAnUnknownHost() {
        long started = System.nanoTime();
        runner("redis://no-such-host.invalid:6379").run(context -> {
            long startMs = elapsedMs(started);
            System.out.printf("start with an unknown host: %d ms%n", startMs);
            assertThat(context).hasNotFailed();
            assertThat(startMs).as("start, %s", stalls).isLessThan(stalls.allowing(5_000));
            answeredWithoutRedisWithinTheBudget(context);
        });
    }

    @Test
    void healthSaysRedisIsUnreachableWithItsAddressAndSinceWhen() {
        int port = RedisProcess.freePort();
        runner("redis://127.0.0.1:" + port).run(context -> {
            Health health = context.getBean("ratelimitHealthIndicator", HealthIndicator.class)
                    .health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails())
                    .containsEntry("degraded", true)
                    .containsEntry("redis", "redis://127.0.0.1:" + port)
                    .containsKey("unavailableSince")
                    .containsEntry("connected", false);
            assertThat(String.valueOf(health.getDetails().get("error"))).contains("connection refused");
        });
    }

    @Test
    void requireAtStartupFailsTheStartNamingTheAddressAndTheProperty() {
        int port = RedisProcess.freePort();
        runner("redis://127.0.0.1:" + port)
                .withPropertyValues("ratelimit.redis.require-at-startup=true")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(Causes.messages(context.getStartupFailure()))
                            .contains("Redis redis://127.0.0.1:" + port + " not reachable at startup")
                            .contains("connection refused");
                });
    }

    @Test
    void twoInstancesStartSideBySideAgainstOneServerWhileTheCpuIsBusy() throws Exception {
        AtomicBoolean busy = new AtomicBoolean(true);
        List<Thread> burners = new ArrayList<>();
        for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
            Thread burner = new Thread(() -> {
                long x = 0;
                while (busy.get()) {
                    x += System.nanoTime() % 7;
                }
                burned = x; // kept, so that the loop is not optimised away
            });
            burner.setDaemon(true);
            burner.start();
            burners.add(burner);
        }
        try {
            ApplicationContextRunner runner =
                    runner(SharedRedis.get().url()).withPropertyValues("ratelimit.redis.connect-timeout=3s");
            for (int round = 0; round < 3; round++) {
                CountDownLatch go = new CountDownLatch(1);
                List<CompletableFuture<Long>> starts = new ArrayList<>();
                for (int instance = 0; instance < 2; instance++) {
                    starts.add(CompletableFuture.supplyAsync(() -> {
                        long[] ms = new long[1];
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                        long started = System.nanoTime();
                        runner.run(context -> {
                            ms[0] = elapsedMs(started);
                            assertThat(context).hasNotFailed();
                            awaitConnected(context);
                            RateLimit limit = RateLimit.of("busy", Algorithm.TOKEN_BUCKET, 100, 60_000);
                            assertThat(context.getBean(RateLimiter.class)
                                            .tryAcquire(List.of(LimitRequest.of(limit, "u", 1)))
                                            .allowed())
                                    .isTrue();
                        });
                        return ms[0];
                    }));
                }
                go.countDown();
                for (CompletableFuture<Long> start : starts) {
                    System.out.printf(
                            "start side by side on a busy CPU, round %d: %d ms%n",
                            round, start.get(60, TimeUnit.SECONDS));
                }
            }
        } finally {
            busy.set(false);
            for (Thread burner : burners) {
                burner.join();
            }
        }
    }

    /** Rate limits fail open, tokens and locks answer RedisUnavailableException: each at once. */
    static void answeredWithoutRedisWithinTheBudget(AssertableApplicationContext context) {
        assertThat(context.getBean(RedisGuard.class).isConnected()).isFalse();
        RateLimit limit = RateLimit.of("down", Algorithm.SLIDING_WINDOW, 5, 60_000);
        for (int i = 0; i < 20; i++) {
            long started = System.nanoTime();
            assertThatThrownBy(() ->
                            context.getBean(RateLimiter.class).tryAcquire(List.of(LimitRequest.of(limit, "u", 1))))
                    .isInstanceOf(RedisUnavailableException.class);
            assertThatThrownBy(
                            () -> context.getBean(SingleUseTokens.class).issue("down", Map.of(), Duration.ofMinutes(1)))
                    .isInstanceOf(RedisUnavailableException.class)
                    .satisfies(e -> assertThat(((RedisUnavailableException) e).retryAfter())
                            .isPositive());
            assertThatThrownBy(() -> context.getBean(LockManager.class)
                            .tryAcquire("down", LockOptions.lease(Duration.ofSeconds(5))))
                    .isInstanceOf(RedisUnavailableException.class);
            assertThat(elapsedMs(started)).isLessThan(FALLBACK_BOUND_MS);
        }
    }

    static void awaitConnected(AssertableApplicationContext... contexts) {
        for (AssertableApplicationContext context : contexts) {
            RedisGuard guard = context.getBean(RedisGuard.class);
            Poll.until("connected to " + guard.target(), Duration.ofSeconds(10), guard::isConnected);
        }
    }

    /** The first {@code limit} calls of a fresh window are admitted, alternating between instances; the next not. */
    static void assertExactAcross(RateLimiter a, RateLimiter b, int limit) {
        RateLimit rate = RateLimit.of("exact-" + UUID.randomUUID(), Algorithm.SLIDING_WINDOW, limit, 60_000);
        int admitted = 0;
        for (int i = 0; i < limit + 3; i++) {
            RateLimiter instance = i % 2 == 0 ? a : b;
            if (instance.tryAcquire(List.of(LimitRequest.of(rate, "client", 1))).allowed()) {
                admitted++;
                assertThat(i).as("admitted only among the first " + limit).isLessThan(limit);
            }
        }
        assertThat(admitted).isEqualTo(limit);
    }

    static long elapsedMs(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }

    static int count(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }
}
