package io.github.ratelimit.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.core.locks.LockLostException;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.spring.EngineContext;
import io.github.ratelimit.spring.definition.InvalidDefinitionException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;
import reactor.core.publisher.Mono;

/**
 * {@code @Locked} for jobs: a lock named by its name alone, a busy lock skipped or refused as declared, a minimum hold,
 * interruption of a method whose lock is lost, and declarations that cannot work failing the start.
 */
class LockedJobsTests {

    /** The application of these tests: the engine wired by hand on plain Spring ({@link EngineContext}). */
    private static EngineContext engine() {
        return EngineContext.on("jobs-beans:");
    }

    static class Jobs {

        @Scheduled(fixedRate = 3_600_000, initialDelay = 3_600_000)
        @Locked(name = "scheduled-job")
        public String scheduled() {
            return "ran";
        }

        @Locked(name = "refused-job")
        public String called() {
            return "ran";
        }

        @Locked(name = "skipped-job", whenBusy = Locked.Busy.SKIP)
        public Mono<String> reactive() {
            return Mono.just("ran");
        }

        @Locked(name = "held-job", minHoldMs = 1_000, leaseMs = 5_000)
        public String held() {
            return "ran";
        }

        @Locked(name = "interrupted-job", leaseMs = 200, maxLifetimeMs = 400, interruptOnLoss = true)
        public String interrupted(CountDownLatch never) {
            try {
                return never.await(10, TimeUnit.SECONDS) ? "released" : "timed out";
            } catch (InterruptedException e) {
                return "interrupted";
            }
        }

        @Locked(name = "cancelled-job", leaseMs = 200, maxLifetimeMs = 400, interruptOnLoss = true)
        public Mono<String> cancelled() {
            return Mono.never();
        }
    }

    static class SkippingPrimitive {
        @Locked(name = "bad-job", whenBusy = Locked.Busy.SKIP)
        public int count() {
            return 1;
        }
    }

    static class HoldPastLifetime {
        @Locked(name = "bad-hold", minHoldMs = 70_000)
        public void run() {}
    }

    /**
     * A busy lock skips a {@code @Scheduled} method (it returns null) and one declared {@code SKIP} (an empty Mono), and
     * refuses any other method; every one of them is locked by its name alone.
     */
    @Test
    void aBusyLockSkipsAScheduledOrSkippingMethodAndRefusesAnyOther() throws Exception {
        try (AnnotationConfigApplicationContext context =
                engine().beans(Jobs.class).start()) {
            Jobs jobs = context.getBean(Jobs.class);
            LockManager locks = context.getBean(LockManager.class);
            LockOptions options = LockOptions.lease(Duration.ofSeconds(10));
            try (LockHandle a = locks.tryAcquire(LockManager.keyOf("scheduled-job"), options);
                    LockHandle b = locks.tryAcquire(LockManager.keyOf("refused-job"), options);
                    LockHandle c = locks.tryAcquire(LockManager.keyOf("skipped-job"), options)) {
                CompletableFuture<String> elsewhere = CompletableFuture.supplyAsync(jobs::scheduled);
                assertThat(elsewhere.get(10, TimeUnit.SECONDS)).as("skipped").isNull();
                assertThatThrownBy(() ->
                                CompletableFuture.supplyAsync(jobs::called).join())
                        .hasCauseInstanceOf(LockNotAcquiredException.class);
                assertThat(jobs.reactive().block(Duration.ofSeconds(10))).isNull();
            }
            assertThat(jobs.scheduled()).isEqualTo("ran");
            assertThat(jobs.called()).isEqualTo("ran");
            assertThat(jobs.reactive().block(Duration.ofSeconds(10))).isEqualTo("ran");
        }
    }

    /** A method that ended within its minimum hold leaves the lock taken until the hold ends, on every instance. */
    @Test
    void aMethodThatEndedWithinItsMinimumHoldKeepsTheLockTaken() {
        try (AnnotationConfigApplicationContext context =
                engine().beans(Jobs.class).start()) {
            assertThat(context.getBean(Jobs.class).held()).isEqualTo("ran");
            LockManager locks = context.getBean(LockManager.class);
            assertThatThrownBy(() ->
                            locks.tryAcquire(LockManager.keyOf("held-job"), LockOptions.lease(Duration.ofSeconds(1))))
                    .isInstanceOfSatisfying(
                            LockNotAcquiredException.class,
                            e -> assertThat(e.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1)));
        }
    }

    /** With {@code interruptOnLoss}, a method whose lock reaches its lifetime is interrupted; a Mono ends with an error. */
    @Test
    void aMethodWhoseLockIsLostIsInterruptedWhenItAsks() {
        try (AnnotationConfigApplicationContext context =
                engine().beans(Jobs.class).start()) {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.interrupted(new CountDownLatch(1))).isEqualTo("interrupted");
            assertThat(Thread.currentThread().isInterrupted())
                    .as("no interrupt left behind")
                    .isFalse();
            assertThatThrownBy(() -> jobs.cancelled().block(Duration.ofSeconds(10)))
                    .isInstanceOf(LockLostException.class);
        }
    }

    /**
     * Regression (an ERROR with a stack trace from the scheduler when Redis was shut down under a running schedule): a
     * job that skips when busy is skipped, not run and not failed, when Redis cannot be asked; any other method is
     * refused.
     */
    @Test
    void aSkippingJobIsSkippedWhileRedisCannotBeAsked() {
        try (AnnotationConfigApplicationContext context = engine().redis(
                        "redis://127.0.0.1:" + io.github.ratelimit.test.support.RedisProcess.freePort())
                .beans(Jobs.class)
                .start()) {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.scheduled()).isNull();
            assertThat(jobs.reactive().block(Duration.ofSeconds(10))).isNull();
            assertThatThrownBy(jobs::called).isInstanceOf(io.github.ratelimit.core.RedisUnavailableException.class);
        }
    }

    @Test
    void declarationsThatCannotWorkFailTheStart() {
        assertThatThrownBy(() -> engine().beans(SkippingPrimitive.class).start())
                .isInstanceOf(InvalidDefinitionException.class)
                .hasMessageContaining("SkippingPrimitive.count()")
                .hasMessageContaining("returns int");
        assertThatThrownBy(() -> engine().beans(HoldPastLifetime.class).start())
                .isInstanceOf(InvalidDefinitionException.class)
                .hasMessageContaining("HoldPastLifetime.run()")
                .hasMessageContaining("minHoldMs must be at most maxLifetimeMs (60000), but was 70000");
    }
}
