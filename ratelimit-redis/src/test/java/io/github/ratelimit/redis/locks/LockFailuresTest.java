package io.github.ratelimit.redis.locks;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.locks.LockManager.LossReason;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import io.github.ratelimit.test.kit.Poll;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

/**
 * The lock failures peers' users report, on a Redis of the test's own (frozen and cut off here), each printing its
 * figure: a holder stalled past its lease (redisson #2665, #5697; ShedLock #132), a connection broken during renewal
 * (redisson #2515), Redis unreachable past the lease, renewal after release (redisson #7272, #1626), and a release from
 * another thread than the one that took the lock (redisson #6662, #6878).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LockFailuresTest {

    private final RedisProcess redis = RedisProcess.start();
    private RedissonClient clientA;
    private RedissonClient clientB;
    private RedisLockManager locksA;
    private RedisLockManager locksB;

    @BeforeEach
    void twoInstances() {
        clientA = redis.newClient();
        clientB = redis.newClient();
        locksA = new RedisLockManager(clientA, "fail:", Guards.patient());
        locksB = new RedisLockManager(clientB, "fail:", Guards.patient());
    }

    @AfterEach
    void stopInstances() {
        locksA.close();
        locksB.close();
        clientA.shutdown();
        clientB.shutdown();
    }

    @AfterAll
    void stopRedis() {
        redis.close();
    }

    private static String key() {
        return "job:" + UUID.randomUUID();
    }

    /** Storage that rejects a write whose fencing token is lower than one it has seen. */
    static final class FencedStore {
        private final AtomicLong highest = new AtomicLong();

        boolean write(long token) {
            return highest.accumulateAndGet(token, Math::max) == token;
        }
    }

    /**
     * The holder's process stalls (its watchdog thread, as in a GC pause) past the lease: another instance takes the
     * lock with a higher fencing token; the stalled holder, resumed, reads that it no longer holds the lock before its
     * next write, is told it lost it, and storage that checks tokens rejects its stale write.
     */
    @Test
    void aHolderStalledPastItsLeaseIsToldBeforeItsNextWriteAndItsStaleWriteIsRejected() throws Exception {
        String key = key();
        LockOptions options = LockOptions.lease(Duration.ofMillis(300)).renewedUpTo(Duration.ofSeconds(30));
        LockHandle stalled = locksA.tryAcquire(key, options);
        List<LossReason> told = new CopyOnWriteArrayList<>();
        stalled.whenLost(told::add);
        FencedStore store = new FencedStore();
        assertThat(store.write(stalled.fencingToken())).isTrue();

        CountDownLatch resume = new CountDownLatch(1);
        locksA.watchdog.execute(() -> awaitQuietly(resume)); // the holder's renewals stall from now on
        long stallStarted = System.nanoTime();
        AtomicReference<LockHandle> successor = new AtomicReference<>();
        AtomicReference<Boolean> stalledHeldThen = new AtomicReference<>();
        Poll.until("another instance to take the lock", Duration.ofSeconds(10), () -> {
            try {
                successor.set(locksB.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10))));
                stalledHeldThen.set(stalled.isHeld());
                return true;
            } catch (LockNotAcquiredException busy) {
                return false;
            }
        });
        long takenAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stallStarted);
        assertThat(store.write(successor.get().fencingToken())).isTrue();

        resume.countDown();
        boolean heldAtNextWrite = stalled.isHeld();
        boolean staleWriteAccepted = store.write(stalled.fencingToken());
        Poll.until("the stalled holder to be told", Duration.ofSeconds(10), () -> !told.isEmpty());
        System.out.printf(
                "stalled holder: another instance took the lock %d ms into the stall (lease 300 ms), fencing token"
                        + " %d -> %d; stalled holder's isHeld() then %s, at its next write %s; told %s; stale write"
                        + " accepted %s%n",
                takenAfterMs,
                stalled.fencingToken(),
                successor.get().fencingToken(),
                stalledHeldThen.get(),
                heldAtNextWrite,
                told,
                staleWriteAccepted);

        assertThat(stalledHeldThen.get())
                .as("the holder's view when another took the lock")
                .isFalse();
        assertThat(heldAtNextWrite).isFalse();
        assertThat(told).hasSize(1).first().isIn(LossReason.RENEWAL_FAILED, LossReason.TAKEN_OVER);
        assertThat(successor.get().fencingToken()).isGreaterThan(stalled.fencingToken());
        assertThat(staleWriteAccepted).isFalse();
        assertThat(stalled.release()).isFalse();
        assertThat(successor.get().release()).isTrue();
    }

    /** Every connection of the holder is cut while it renews: renewal resumes on the new connection, the lock holds. */
    @Test
    void renewalResumesAfterItsConnectionIsBroken() {
        String key = key();
        LockHandle lock =
                locksA.tryAcquire(key, LockOptions.lease(Duration.ofMillis(600)).renewedUpTo(Duration.ofSeconds(60)));
        List<LossReason> told = new CopyOnWriteArrayList<>();
        lock.whenLost(told::add);
        Poll.until("a first renewal", Duration.ofSeconds(5), () -> locksA.renewalsSent.get() >= 1);

        // every client connection, this raw one's excepted (it is the killer): both instances reconnect
        String killed = io.github.ratelimit.test.support.RawRedis.command(
                redis.port(), "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
        long before = locksA.renewalsSent.get();
        Poll.until(
                "three more leases of renewals", Duration.ofSeconds(10), () -> locksA.renewalsSent.get() >= before + 9);
        boolean othersRefused;
        try (LockHandle other = locksB.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(1)))) {
            othersRefused = false;
        } catch (LockNotAcquiredException busy) {
            othersRefused = true;
        }
        System.out.printf(
                "connection broken during renewal: %s connections killed; renewals after it %d; still held %s; another"
                        + " instance refused %s; told %s%n",
                killed.trim(), locksA.renewalsSent.get() - before, lock.isHeld(), othersRefused, told);

        assertThat(lock.isHeld()).isTrue();
        assertThat(othersRefused).isTrue();
        assertThat(told).isEmpty();
        assertThat(lock.release()).isTrue();
    }

    /**
     * Redis stops answering for longer than the lease: the holder is told its renewal failed while Redis is still
     * stopped, so before any other instance could have taken the lock.
     */
    @Test
    void aHolderIsToldWhileRedisIsUnreachablePastTheLease() {
        String key = key();
        LockHandle lock =
                locksA.tryAcquire(key, LockOptions.lease(Duration.ofMillis(500)).renewedUpTo(Duration.ofSeconds(60)));
        List<LossReason> told = new CopyOnWriteArrayList<>();
        CompletableFuture<Long> toldAt = new CompletableFuture<>();
        lock.whenLost(reason -> {
            told.add(reason);
            toldAt.complete(System.nanoTime());
        });
        long frozenAt = System.nanoTime();
        redis.freeze();
        boolean toldWhileFrozen;
        try {
            Poll.until("the holder to be told", Duration.ofSeconds(10), () -> !told.isEmpty());
            toldWhileFrozen = true;
        } finally {
            redis.thaw();
        }
        System.out.printf(
                "Redis unreachable past a 500 ms lease: the holder was told %s %d ms after Redis stopped, while it was"
                        + " still stopped: %s%n",
                told, TimeUnit.NANOSECONDS.toMillis(toldAt.join() - frozenAt), toldWhileFrozen);

        assertThat(told).containsExactly(LossReason.RENEWAL_FAILED);
        assertThat(lock.isHeld()).isFalse();
    }

    /** Once released, a lock is never renewed: no renewal is sent, and Redis runs no PEXPIRE, over five periods. */
    @Test
    void noRenewalIsSentAfterRelease() throws Exception {
        String key = key();
        LockHandle lock =
                locksA.tryAcquire(key, LockOptions.lease(Duration.ofMillis(150)).renewedUpTo(Duration.ofSeconds(60)));
        Poll.until("two renewals", Duration.ofSeconds(5), () -> locksA.renewalsSent.get() >= 2);
        assertThat(lock.release()).isTrue();
        long renewals = locksA.renewalsSent.get();
        long pexpires = RedisCommands.commandCalls(clientB, "pexpire");

        CountDownLatch fivePeriods = new CountDownLatch(1);
        locksA.watchdog.schedule(fivePeriods::countDown, 250, TimeUnit.MILLISECONDS);
        assertThat(fivePeriods.await(10, TimeUnit.SECONDS)).isTrue();

        long renewalsAfter = locksA.renewalsSent.get() - renewals;
        long pexpiresAfter = RedisCommands.commandCalls(clientB, "pexpire") - pexpires;
        System.out.printf(
                "after release, over 5 renewal periods: renewals sent %d, PEXPIRE run by Redis %d; renewals running %d%n",
                renewalsAfter, pexpiresAfter, locksA.renewing());
        assertThat(renewalsAfter).isZero();
        assertThat(pexpiresAfter).isZero();
        assertThat(locksA.renewing()).isZero();
    }

    /**
     * A renewal sent just before a release within the minimum hold and run by Redis after it (it travels on another
     * connection) does not extend the hold: the lock still frees at the end of its minimum hold, not a lease later.
     */
    @Test
    void aRenewalRunAfterAReleaseWithinTheMinimumHoldDoesNotExtendIt() {
        String key = key();
        RedisLock lock = (RedisLock) locksA.tryAcquire(
                key, LockOptions.lease(Duration.ofSeconds(10)).holdingAtLeast(Duration.ofMillis(300)));
        String lockKey = new RedisKeys("fail:").lockKey(RedisKeys.tag(key));
        assertThat(lock.release()).isTrue();

        List<Object> late = locksA.executor.call(
                RedisLockManager.RENEW,
                List.of(lockKey, RedisKeys.descriptionKey(lockKey)),
                new Object[] {lock.owner(), "10000"});
        long pttl = RedisCommands.onKey(clientB, "PTTL", lockKey);
        System.out.printf(
                "a renewal run after a release within a 300 ms minimum hold: answered %s, PTTL %d ms%n",
                late.get(0), pttl);
        assertThat(ScriptExecutor.number(late.get(0))).isZero();
        assertThat(pttl).isPositive().isLessThanOrEqualTo(300);
    }

    /**
     * A lock taken on one thread is released from another (a continuation on another carrier thread, a coroutine
     * resumed elsewhere): the owner is the handle, not the thread, so the release frees it for every instance at once.
     */
    @Test
    void aLockTakenOnOneThreadIsReleasedFromAnother() throws Exception {
        String key = key();
        LockHandle lock = CompletableFuture.supplyAsync(
                        () -> locksA.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(30))))
                .get(10, TimeUnit.SECONDS);
        Thread releaser = new Thread(() -> assertThat(lock.release()).isTrue());
        releaser.start();
        releaser.join(TimeUnit.SECONDS.toMillis(10));
        LockHandle async = locksA.tryAcquireAsync(key, LockOptions.lease(Duration.ofSeconds(30)))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        boolean releasedElsewhere =
                CompletableFuture.supplyAsync(async::release).get(10, TimeUnit.SECONDS);
        try (LockHandle next = locksB.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(1)))) {
            System.out.printf(
                    "released from other threads: a blocking acquisition's and an async one's; the other instance took"
                            + " it at once with token %d%n",
                    next.fencingToken());
            assertThat(releasedElsewhere).isTrue();
            assertThat(next.fencingToken()).isGreaterThan(async.fencingToken());
        }
    }

    /**
     * On virtual threads (JDK 21 or newer; the baseline, 17, skips this): a lock taken on one virtual thread, which then
     * parks and may resume on another carrier, is released from a second virtual thread, and the other instance takes
     * it at once.
     */
    @Test
    @org.junit.jupiter.api.condition.EnabledForJreRange(min = org.junit.jupiter.api.condition.JRE.JAVA_21)
    void aLockTakenOnAVirtualThreadIsReleasedFromAnotherVirtualThread() throws Exception {
        String key = key();
        java.util.concurrent.ExecutorService virtual =
                (java.util.concurrent.ExecutorService) java.util.concurrent.Executors.class
                        .getMethod("newVirtualThreadPerTaskExecutor")
                        .invoke(null);
        try {
            LockHandle lock = virtual.submit(() -> {
                        LockHandle taken = locksA.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(30)));
                        Thread.sleep(20); // parks: the virtual thread leaves its carrier
                        try (LockHandle nested = locksA.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(30)))) {
                            assertThat(nested.fencingToken()).isEqualTo(taken.fencingToken()); // still re-entrant
                        }
                        return taken;
                    })
                    .get(10, TimeUnit.SECONDS);
            boolean released = virtual.submit(lock::release).get(10, TimeUnit.SECONDS);
            try (LockHandle next = locksB.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(1)))) {
                System.out.printf(
                        "virtual threads: released from another virtual thread %s; the other instance took it at once%n",
                        released);
                assertThat(released).isTrue();
                assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
            }
        } finally {
            virtual.shutdown();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
