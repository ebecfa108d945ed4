package io.github.ratelimit.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.spring.EngineContext;
import io.github.ratelimit.spring.definition.InvalidDefinitionException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

class LockedBeanTests {

    /** The application of these tests: the engine wired by hand on plain Spring ({@link EngineContext}). */
    private static EngineContext engine() {
        return EngineContext.on("ratelimit:").beans(Workers.class);
    }

    static class Workers {
        private Workers self;

        void setSelf(Workers self) {
            this.self = self;
        }

        @Locked(name = "worker", key = "#userId", leaseMs = 5_000)
        public long work(String userId, LockHandle lock, CountDownLatch started, CountDownLatch finish)
                throws InterruptedException {
            lock.checkHeld();
            started.countDown();
            finish.await(10, TimeUnit.SECONDS);
            return lock.fencingToken();
        }

        @Locked(name = "worker", key = "#userId", leaseMs = 5_000)
        public long outer(String userId, LockHandle lock) {
            return self.inner(userId, null) == lock.fencingToken() ? lock.fencingToken() : -1;
        }

        @Locked(name = "worker", key = "#userId", leaseMs = 5_000)
        public long inner(String userId, LockHandle lock) {
            return lock.fencingToken();
        }

        @Locked(name = "short", key = "#userId", leaseMs = 200, maxLifetimeMs = 400)
        public boolean outlivesItsLock(String userId, LockHandle lock) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (lock.isHeld() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            return lock.isHeld();
        }
    }

    @Test
    void secondCallerIsRefusedWhileTheFirstRunsAndAnotherKeyProceeds() throws Exception {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Workers workers = context.getBean(Workers.class);
            String user = "u-" + UUID.randomUUID();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            CompletableFuture<Long> first =
                    CompletableFuture.supplyAsync(() -> call(() -> workers.work(user, null, started, finish)));
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

            assertThatThrownBy(() -> workers.work(user, null, new CountDownLatch(1), new CountDownLatch(0)))
                    .isInstanceOf(LockNotAcquiredException.class)
                    .satisfies(e -> assertThat(
                                    ((LockNotAcquiredException) e).retryAfter().toMillis())
                            .isBetween(1L, 5_000L));
            long other = workers.work("other-" + UUID.randomUUID(), null, new CountDownLatch(1), new CountDownLatch(0));
            finish.countDown();
            long token = first.get(10, TimeUnit.SECONDS);
            long after = workers.work(user, null, new CountDownLatch(1), new CountDownLatch(0));

            assertThat(other).isPositive();
            assertThat(after).isGreaterThan(token);
        }
    }

    /** The README's way for a test to hold a method's lock: LockManager.keyOf with the annotation's name and key. */
    @Test
    void aLockHeldThroughTheLockManagerUnderTheMethodsKeyRefusesTheMethod() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            String user = "u-" + UUID.randomUUID();
            LockManager locks = context.getBean(LockManager.class);
            String key = LockManager.keyOf("worker", ClientIdentifier.of("#userId", user));
            Workers workers = context.getBean(Workers.class);
            try (LockHandle held = locks.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10)))) {
                assertThat(held.isHeld()).isTrue();
                // on another thread: the test's own thread holds the lock and would re-enter it
                assertThat(CompletableFuture.supplyAsync(() -> workers.inner(user, null)))
                        .failsWithin(Duration.ofSeconds(10))
                        .withThrowableOfType(ExecutionException.class)
                        .withCauseInstanceOf(LockNotAcquiredException.class);
                assertThat(CompletableFuture.supplyAsync(() -> workers.inner("u-" + UUID.randomUUID(), null)))
                        .succeedsWithin(Duration.ofSeconds(10))
                        .satisfies(token -> assertThat(token).isPositive());
            }
            assertThat(context.getBean(Workers.class).inner(user, null)).isPositive();
        }
    }

    @Test
    void nestedCallOnTheSameKeyAndThreadIsReentrant() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Workers workers = context.getBean(Workers.class);
            workers.setSelf(workers);
            assertThat(workers.outer("u-" + UUID.randomUUID(), null)).isPositive();
        }
    }

    @Test
    void theMethodCanTellWhenMaxLifetimeEndedItsLock() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            assertThat(context.getBean(Workers.class).outlivesItsLock("u-" + UUID.randomUUID(), null))
                    .isFalse();
        }
    }

    @Test
    void nullKeyIsAnError() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            assertThatThrownBy(() -> context.getBean(Workers.class).inner(null, null))
                    .isInstanceOf(RateLimitEvaluationException.class)
                    .hasMessageContaining("Lock key '#userId'")
                    .hasMessageContaining("evaluated to null");
        }
    }

    @Test
    void invalidDeclarationsFailTheStart() {
        assertThatThrownBy(() -> engine().beans(ShortLifetime.class).start())
                .isInstanceOf(InvalidDefinitionException.class)
                .hasMessageContaining("Invalid @Locked on")
                .hasMessageContaining("ShortLifetime.call(String)")
                .hasMessageContaining("maxLifetimeMs must be at least leaseMs 1000, but was 10");
        assertThatThrownBy(() -> engine().beans(UnknownVariable.class).start())
                .hasMessageContaining("key '#user' names #user");
    }

    /**
     * A {@code Future} that is not a {@code CompletionStage}: the lock would be released when the method returns, while
     * the work goes on; no adapter follows it, so the start fails naming the method and the type.
     */
    @Test
    void aReturnTypeNoAdapterFollowsFailsTheStart() {
        assertThatThrownBy(() -> engine().beans(PlainFuture.class).start())
                .isInstanceOf(InvalidDefinitionException.class)
                .hasMessageContaining("Invalid @Locked on")
                .hasMessageContaining("PlainFuture.call(String)")
                .hasMessageContaining("returns java.util.concurrent.Future")
                .hasMessageContaining("return a CompletableFuture, Mono or Flux");
    }

    static class PlainFuture {
        @Locked(key = "#id")
        public java.util.concurrent.Future<String> call(String id) {
            return java.util.concurrent.CompletableFuture.completedFuture(id);
        }
    }

    static class ShortLifetime {
        @Locked(key = "#id", leaseMs = 1_000, maxLifetimeMs = 10)
        public void call(String id) {}
    }

    static class UnknownVariable {
        @Locked(key = "#user")
        public void call(String id) {}
    }

    interface Call<T> {
        T run() throws Exception;
    }

    static <T> T call(Call<T> call) {
        try {
            return call.run();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
