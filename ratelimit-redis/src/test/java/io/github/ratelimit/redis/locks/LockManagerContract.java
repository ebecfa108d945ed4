package io.github.ratelimit.redis.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.fixtures.Stalls;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.test.kit.Poll;
import io.github.ratelimit.test.support.RedisTopology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

/** The lock promises, run on a single Redis and on a Redis Cluster alike. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LockManagerContract {

    RedissonClient clientA;
    RedissonClient clientB;
    RedisLockManager locksA;
    RedisLockManager locksB;

    /** Where the tests run. */
    abstract RedisTopology topology();

    @BeforeAll
    void start() {
        clientA = topology().newClient();
        clientB = topology().newClient();
        locksA = new RedisLockManager(clientA, "ratelimit:", Guards.patient());
        locksB = new RedisLockManager(clientB, "ratelimit:", Guards.patient());
    }

    @AfterAll
    void stop() {
        locksA.close();
        locksB.close();
        clientA.shutdown();
        clientB.shutdown();
    }

    static String key() {
        return "job:" + UUID.randomUUID();
    }

    static String lockKeyInRedis(String key) {
        return new RedisKeys("ratelimit:").lockKey(RedisKeys.tag(key));
    }

    /** 2 clients x 16 threads around a non-atomic counter: the counter is exact, never two inside. */
    @Test
    void mutualExclusionAcrossInstances() throws Exception {
        String key = key();
        int threads = 32;
        int iterations = 25;
        int[] counter = {0};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        LockOptions options = LockOptions.lease(Duration.ofSeconds(10)).waitingUpTo(Duration.ofSeconds(60));
        for (int t = 0; t < threads; t++) {
            RedisLockManager locks = t % 2 == 0 ? locksA : locksB;
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < iterations; i++) {
                    try (LockHandle lock = locks.tryAcquire(key, options)) {
                        maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        int read = counter[0];
                        Thread.yield();
                        counter[0] = read + 1;
                        inside.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> future : futures) {
            future.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();

        assertThat(counter[0]).isEqualTo(threads * iterations);
        assertThat(maxInside.get()).isEqualTo(1);
    }

    @Test
    void aBusyLockIsRefusedWithItsRemainingLease() {
        String key = key();
        try (LockHandle held = locksA.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5)))) {
            assertThatThrownBy(() -> locksB.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5))))
                    .isInstanceOf(LockNotAcquiredException.class)
                    .satisfies(e -> assertThat(
                                    ((LockNotAcquiredException) e).retryAfter().toMillis())
                            .isBetween(1L, 5_000L));
            assertThat(held.isHeld()).isTrue();
        }
        locksB.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5))).release();
    }

    /** A's lease runs out, B takes the lock; A's release leaves B's lock alone and tells A. */
    @Test
    void releaseByAFormerHolderNeverRemovesTheNewHoldersLock() {
        String key = key();
        LockHandle a = locksA.tryAcquire(key, LockOptions.lease(Duration.ofMillis(100)));
        Poll.until(
                "A's lease to run out",
                Duration.ofSeconds(5),
                () -> RedisCommands.<Long>onKey(clientA, "EXISTS", lockKeyInRedis(key)) == 0);
        assertThat(a.isHeld()).isFalse();
        LockHandle b = locksB.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10)));

        assertThat(a.release()).isFalse();

        assertThat(RedisCommands.<Long>onKey(clientA, "EXISTS", lockKeyInRedis(key)))
                .isEqualTo(1);
        assertThat(b.isHeld()).isTrue();
        assertThatThrownBy(a::checkHeld).hasMessageContaining("no longer held");
        assertThat(b.release()).isTrue();
        assertThat(RedisCommands.<Long>onKey(clientA, "EXISTS", lockKeyInRedis(key)))
                .isZero();
    }

    /**
     * Held past its first lease, through several renewals, thanks to the watchdog; after release no renewal goes on and
     * the key is gone.
     */
    @Test
    void watchdogKeepsALongRunningHolderAndStopsAfterRelease() {
        String key = key();
        long sentBefore = locksA.renewalsSent.get();
        LockHandle lock = locksA.tryAcquire(
                key, LockOptions.lease(Duration.ofMillis(2_000)).renewedUpTo(Duration.ofSeconds(30)));
        // renewed every 666 ms, so only a renewal over 1.3 s late would lose it (a 300 ms lease once lost it on a busy
        // 2-core machine, and a 900 ms one under a parallel build at load 10); held until its first lease has ended and
        // three renewals went out, so that only the watchdog can have kept it
        long firstLeaseEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_100);
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int checks = 0;
        while (System.nanoTime() < firstLeaseEnd || locksA.renewalsSent.get() - sentBefore < 3) {
            assertThat(System.nanoTime()).as("three renewals within 20 s").isLessThan(giveUp);
            assertThatThrownBy(() -> locksB.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(1))))
                    .isInstanceOf(LockNotAcquiredException.class);
            assertThat(lock.isHeld()).isTrue();
            checks++;
        }
        assertThat(checks).isPositive();
        assertThat(locksA.renewing()).isPositive();

        assertThat(lock.release()).isTrue();

        assertThat(locksA.renewing()).isZero();
        assertThat(RedisCommands.<Long>onKey(clientA, "EXISTS", lockKeyInRedis(key)))
                .isZero();
    }

    /** maxLifetime bounds the renewals: the lock expires while the holder still runs, and the holder can tell. */
    @Test
    void maxLifetimeEndsTheLockEvenIfTheHolderStillRuns() {
        String key = key();
        long started = System.nanoTime();
        LockHandle lock =
                locksA.tryAcquire(key, LockOptions.lease(Duration.ofMillis(200)).renewedUpTo(Duration.ofMillis(500)));
        Poll.until(
                "the lock to expire",
                Duration.ofSeconds(5),
                () -> RedisCommands.<Long>onKey(clientB, "EXISTS", lockKeyInRedis(key)) == 0);
        long heldMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertThat(heldMs).isGreaterThanOrEqualTo(450);
        assertThat(lock.isHeld()).isFalse();
        Poll.until("renewal to stop", Duration.ofSeconds(2), () -> locksA.renewing() == 0);
        LockHandle next = locksB.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5)));
        assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        assertThat(lock.release()).isFalse();
        assertThat(next.release()).isTrue();
    }

    /** A holder that vanishes without releasing (its client closed abruptly) frees the lock within the lease. */
    @Test
    void aCrashedHoldersLockFreesUpWithinTheLease() {
        String key = key();
        RedissonClient doomed = topology().newClient();
        RedisLockManager doomedLocks = new RedisLockManager(doomed, "ratelimit:", Guards.patient());
        doomedLocks.tryAcquire(key, LockOptions.lease(Duration.ofMillis(500)).renewedUpTo(Duration.ofSeconds(30)));
        doomedLocks.close();
        doomed.shutdown(0, 0, TimeUnit.MILLISECONDS);
        long crashedAt = System.nanoTime();
        Stalls stalls = Stalls.watch();

        LockHandle taken =
                locksB.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5)).waitingUpTo(Duration.ofSeconds(5)));
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashedAt);

        assertThat(taken.isHeld()).isTrue();
        stalls.close();
        assertThat(waitedMs).as("waited, %s", stalls).isLessThanOrEqualTo(stalls.allowing(500 + 400));
        taken.release();
    }

    /** Waiters are woken by the release (pub/sub): the first gets the lock promptly; never two at once. */
    @Test
    void waitersGetTheLockPromptlyAfterReleaseOneAtATime() throws Exception {
        String key = key();
        LockHandle holder = locksA.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(30)));
        int waiters = 6;
        ExecutorService pool = Executors.newFixedThreadPool(waiters);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        AtomicLong firstAcquiredAt = new AtomicLong();
        CountDownLatch allWaiting = new CountDownLatch(waiters);
        List<Future<Long>> futures = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            RedisLockManager locks = i % 2 == 0 ? locksA : locksB;
            futures.add(pool.submit(() -> {
                allWaiting.countDown();
                try (LockHandle lock = locks.tryAcquire(
                        key, LockOptions.lease(Duration.ofSeconds(30)).waitingUpTo(Duration.ofSeconds(30)))) {
                    firstAcquiredAt.compareAndSet(0, System.nanoTime());
                    maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    Thread.sleep(20); // simulated work while holding the lock
                    inside.decrementAndGet();
                    return lock.fencingToken();
                }
            }));
        }
        allWaiting.await();
        Poll.until(
                "waiters to block",
                Duration.ofSeconds(5),
                () -> locksA.listening(lockKeyInRedis(key)) + locksB.listening(lockKeyInRedis(key)) == waiters);
        Stalls stalls = Stalls.watch();
        long releasedAt = System.nanoTime();
        holder.release();
        List<Long> tokens = new ArrayList<>();
        for (Future<Long> future : futures) {
            tokens.add(future.get(60, TimeUnit.SECONDS));
        }
        pool.shutdown();

        long latencyMs = TimeUnit.NANOSECONDS.toMillis(firstAcquiredAt.get() - releasedAt);
        stalls.close();
        System.out.println("lock hand-over after release: " + latencyMs + " ms, " + stalls);
        assertThat(latencyMs).as("hand-over, %s", stalls).isLessThanOrEqualTo(stalls.allowing(250));
        assertThat(maxInside.get()).isEqualTo(1);
        assertThat(tokens).doesNotHaveDuplicates().allSatisfy(t -> assertThat(t).isGreaterThan(holder.fencingToken()));
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossReleaseAndExpiry() {
        String key = key();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            try (LockHandle lock = locksA.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5)))) {
                tokens.add(lock.fencingToken());
            }
        }
        LockHandle expiring = locksB.tryAcquire(key, LockOptions.lease(Duration.ofMillis(50)));
        tokens.add(expiring.fencingToken());
        Poll.until(
                "expiry",
                Duration.ofSeconds(5),
                () -> RedisCommands.<Long>onKey(clientA, "EXISTS", lockKeyInRedis(key)) == 0);
        try (LockHandle lock = locksA.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5)))) {
            tokens.add(lock.fencingToken());
        }

        List<Long> sorted = new ArrayList<>(tokens);
        Collections.sort(sorted);
        assertThat(tokens).isEqualTo(sorted).doesNotHaveDuplicates();
    }

    @Test
    void reentrantOnTheSameThread() {
        String key = key();
        LockHandle outer = locksA.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5)));
        LockHandle inner = locksA.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5)));

        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        inner.release();
        assertThat(outer.isHeld()).isTrue();
        assertThat(RedisCommands.<Long>onKey(clientA, "EXISTS", lockKeyInRedis(key)))
                .isEqualTo(1);
        assertThat(outer.release()).isTrue();
        assertThat(RedisCommands.<Long>onKey(clientA, "EXISTS", lockKeyInRedis(key)))
                .isZero();
    }

    @Test
    void everyLockKeyHasATtl() {
        String key = key();
        try (LockHandle lock = locksA.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5)))) {
            String tagged = lockKeyInRedis(key);
            assertThat(RedisCommands.<Long>onKey(clientA, "PTTL", tagged)).isBetween(1L, 5_000L);
            String fence = tagged.substring(0, tagged.length() - "lock".length()) + "fence";
            assertThat(RedisCommands.<Long>onKey(clientA, "PTTL", fence))
                    .isBetween(1L, Duration.ofDays(1).toMillis());
        }
    }
}
