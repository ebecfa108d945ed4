package io.github.ratelimit.test.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.HeldLock;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.locks.LockManager.LossReason;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The promises of a {@link LockManager}, for any store: extend it, make the lock manager in {@link #newInstance()}.
 * One holder at a time across instances; a busy lock is refused with its remaining lease; a lock is released only by
 * its owner (a holder whose lease ran out cannot remove its successor's lock); fencing tokens strictly increase; a
 * lock ends at its lifetime however long its holder runs; a holder learns that it lost its lock before another can take
 * it; a lock released within its minimum hold (the one it was taken with, or one an extension set) stays taken until
 * then; operators list locks and free them, and the holder is told.
 */
public abstract class LockManagerContract extends TwoInstances<LockManager> {

    /**
     * Whether a lock is a lease its holder renews, so that a crashed holder's lock ends after a lease (a store shared by
     * processes); false for a store in the holder's own memory, where a lock ends when released or at its lifetime.
     */
    protected boolean locksAreLeases() {
        return true;
    }

    /** Two instances' threads around a counter that is not thread-safe: never two inside, and the count is exact. */
    @Test
    void oneHolderAtATimeAcrossInstances() throws Exception {
        String key = fresh("job");
        int[] counter = {0};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        LockOptions options = LockOptions.lease(Duration.ofSeconds(10)).waitingUpTo(Duration.ofSeconds(30));

        Threads.run(16, 10, (thread, i) -> {
            try (LockHandle lock = instance(thread).tryAcquire(key, options)) {
                mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                int read = counter[0];
                Thread.onSpinWait();
                counter[0] = read + 1;
                inside.decrementAndGet();
                assertThat(lock.isHeld()).isTrue();
            }
        });

        assertThat(mostInside.get()).isEqualTo(1);
        assertThat(counter[0]).isEqualTo(160);
    }

    @Test
    void aBusyLockIsRefusedWithItsRemainingLease() {
        String key = fresh("job");
        try (LockHandle held = instance(0).tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10)))) {
            assertThat(held.isHeld()).isTrue();

            assertThatThrownBy(() -> instance(1).tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10))))
                    .isInstanceOfSatisfying(LockNotAcquiredException.class, e -> {
                        assertThat(e.key()).isEqualTo(key);
                        assertThat(e.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));
                    });
        }
        try (LockHandle next = instance(1).tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10)))) {
            assertThat(next.isHeld()).isTrue();
        }
    }

    /**
     * {@code tryAcquire} is re-entrant per thread: the holding thread gets a nested handle, and only the outermost
     * release frees the lock. Asked {@code notReentrant()}, the holding thread is refused like any other holder.
     */
    @Test
    void theHoldingThreadNestsUnlessItAsksNotReentrant() {
        String key = fresh("job");
        LockOptions options = LockOptions.lease(Duration.ofSeconds(10));
        try (LockHandle outer = instance(0).tryAcquire(key, options)) {
            assertThatThrownBy(() -> instance(0).tryAcquire(key, options.notReentrant()))
                    .isInstanceOf(LockNotAcquiredException.class);
            try (LockHandle nested = instance(0).tryAcquire(key, options)) {
                assertThat(nested.fencingToken()).isEqualTo(outer.fencingToken());
            }
            assertThat(outer.isHeld())
                    .as("the nested release leaves the lock held")
                    .isTrue();
            assertThatThrownBy(() -> instance(1).tryAcquire(key, options)).isInstanceOf(LockNotAcquiredException.class);
        }
        try (LockHandle next = instance(1).tryAcquire(key, options.notReentrant())) {
            assertThat(next.isHeld()).isTrue();
        }
    }

    @Test
    void aFormerHolderNeverReleasesItsSuccessorsLock() {
        String key = fresh("job");
        LockHandle former = instance(0).tryAcquire(key, LockOptions.lease(Duration.ofMillis(200)));
        Poll.until("the former holder's lease to run out", Duration.ofSeconds(10), () -> !former.isHeld());
        LockHandle successor = acquireWithin(instance(1), key, Duration.ofSeconds(10));

        assertThat(former.release()).isFalse();

        assertThatThrownBy(() -> instance(0).tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10))))
                .isInstanceOf(LockNotAcquiredException.class);
        assertThat(successor.release()).isTrue();
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossReleaseAndExpiry() {
        String key = fresh("job");
        long first;
        try (LockHandle lock = instance(0).tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10)))) {
            first = lock.fencingToken();
        }
        LockHandle expiring = instance(1).tryAcquire(key, LockOptions.lease(Duration.ofMillis(200)));
        assertThat(expiring.fencingToken()).isGreaterThan(first);
        Poll.until("the lease to run out", Duration.ofSeconds(10), () -> !expiring.isHeld());

        try (LockHandle after = acquireWithin(instance(0), key, Duration.ofSeconds(10))) {
            assertThat(after.fencingToken()).isGreaterThan(expiring.fencingToken());
        }
    }

    /** A lock renewed while held ends at its lifetime all the same: another instance then takes it. */
    @Test
    void aLockEndsAtItsLifetimeWhileItsHolderStillRuns() {
        String key = fresh("job");
        LockHandle held = instance(0)
                .tryAcquire(key, LockOptions.lease(Duration.ofMillis(200)).renewedUpTo(Duration.ofMillis(600)));

        Poll.until("the lock to end at its lifetime", Duration.ofSeconds(10), () -> !held.isHeld());
        try (LockHandle next = acquireWithin(instance(1), key, Duration.ofSeconds(10))) {
            assertThat(next.isHeld()).isTrue();
        }
        assertThat(held.release()).isFalse();
    }

    /**
     * A job that learns it needs longer extends its lock: renewed in lease steps past the lifetime it was taken with,
     * still held after it and still refused to another instance (with a lease's wait at most where locks are leases,
     * so a crashed holder's lock would still end soon).
     */
    @Test
    void aHolderExtendsItsLockPastItsLifetime() throws InterruptedException {
        String key = fresh("job");
        LockOptions options = LockOptions.lease(Duration.ofMillis(300)).renewedUpTo(Duration.ofMillis(600));
        try (LockHandle held = instance(0).tryAcquire(key, options)) {
            assertThat(held.extend(Duration.ofSeconds(30))).isTrue();

            Thread.sleep(900); // past the lifetime the lock was taken with: the time passing is what is tested
            assertThat(held.isHeld()).isTrue();
            assertThatThrownBy(() -> instance(1).tryAcquire(key, options))
                    .isInstanceOfSatisfying(LockNotAcquiredException.class, e -> assertThat(e.retryAfter())
                            .isLessThanOrEqualTo(locksAreLeases() ? Duration.ofMillis(300) : Duration.ofSeconds(30)));
        }
    }

    /**
     * A lock that is not renewed (ShedLock's {@code lockAtMostFor}) lives its whole extension: another instance is
     * told to wait for most of it.
     */
    @Test
    void aLockNotRenewedLivesItsWholeExtension() throws InterruptedException {
        String key = fresh("job");
        try (LockHandle held = instance(0).tryAcquire(key, LockOptions.lease(Duration.ofMillis(300)))) {
            assertThat(held.extendAsync(Duration.ofSeconds(30))
                            .toCompletableFuture()
                            .join())
                    .isTrue();

            Thread.sleep(600); // past the lease the lock was taken with
            assertThat(held.isHeld()).isTrue();
            assertThatThrownBy(() -> instance(1).tryAcquire(key, LockOptions.lease(Duration.ofMillis(300))))
                    .isInstanceOfSatisfying(LockNotAcquiredException.class, e -> assertThat(e.retryAfter())
                            .isGreaterThan(Duration.ofSeconds(20)));
        }
    }

    /** A lock no longer held is not extended, and its successor's lock is untouched. */
    @Test
    void aLockNoLongerHeldIsNotExtended() {
        String key = fresh("job");
        LockHandle expiring = instance(0).tryAcquire(key, LockOptions.lease(Duration.ofMillis(200)));
        Poll.until("the lease to run out", Duration.ofSeconds(10), () -> !expiring.isHeld());

        assertThat(expiring.extend(Duration.ofSeconds(30))).isFalse();
        try (LockHandle successor = acquireWithin(instance(1), key, Duration.ofSeconds(10))) {
            assertThat(expiring.extend(Duration.ofSeconds(30))).isFalse();
            assertThat(successor.isHeld()).isTrue();
            assertThatThrownBy(() -> instance(0).tryAcquire(key, LockOptions.lease(Duration.ofSeconds(1))))
                    .isInstanceOf(LockNotAcquiredException.class);
        }
        assertThatThrownBy(() -> expiring.extend(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A waiting caller gets the lock once its holder releases it. */
    @Test
    void aWaiterGetsTheLockOnceReleased() throws Exception {
        String key = fresh("job");
        LockHandle held = instance(0).tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10)));
        AtomicInteger got = new AtomicInteger();

        Thread waiter = new Thread(() -> {
            try (LockHandle lock = instance(1)
                    .tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10)).waitingUpTo(Duration.ofSeconds(10)))) {
                got.set(lock.isHeld() ? 1 : -1);
            }
        });
        waiter.start();
        assertThat(got.get()).isZero();
        assertThat(held.release()).isTrue();
        waiter.join(Duration.ofSeconds(15).toMillis());

        assertThat(got.get()).isEqualTo(1);
    }

    /**
     * The holder's view ends before the store lets anyone else in: when another instance first takes the lock, its
     * former holder already reads {@code isHeld() == false} and was told why, once.
     */
    @Test
    void aHolderKnowsItLostTheLockBeforeAnotherCanTakeIt() {
        String key = fresh("job");
        LockHandle former = instance(0).tryAcquire(key, LockOptions.lease(Duration.ofMillis(300)));
        List<LossReason> told = new CopyOnWriteArrayList<>();
        former.whenLost(told::add);
        AtomicReference<LockHandle> successor = new AtomicReference<>();
        AtomicBoolean formerHeldThen = new AtomicBoolean(true);

        Poll.until("another instance to take the lock", Duration.ofSeconds(10), () -> {
            try {
                successor.set(instance(1).tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10))));
                formerHeldThen.set(former.isHeld());
                return true;
            } catch (LockNotAcquiredException busy) {
                return false;
            }
        });

        assertThat(formerHeldThen)
                .as("the former holder's view when the successor got the lock")
                .isFalse();
        Poll.until("the former holder to be told", Duration.ofSeconds(5), () -> !told.isEmpty());
        assertThat(told).containsExactly(LossReason.LIFETIME_REACHED);
        assertThat(java.util.Objects.requireNonNull(successor.get()).fencingToken())
                .isGreaterThan(former.fencingToken());
        assertThat(successor.get().release()).isTrue();
    }

    /**
     * A holder that releases its lock is never told it lost it. The lease is a second, so that a machine stalled for a
     * few hundred ms between the take and the release (a loaded CI runner) still releases a lock it holds.
     */
    @Test
    void aReleasedLockIsNeverReportedLost() {
        String key = fresh("job");
        Duration lease = Duration.ofSeconds(1);
        LockHandle lock = instance(0).tryAcquire(key, LockOptions.lease(lease));
        List<LossReason> told = new CopyOnWriteArrayList<>();
        lock.whenLost(told::add);
        assertThat(lock.release()).isTrue();
        long released = System.nanoTime();

        // another instance takes the key, and the released lease would have run out: still nothing told
        try (LockHandle next = acquireWithin(instance(1), key, Duration.ofSeconds(10))) {
            Poll.until(
                    "the released lease's end",
                    lease.multipliedBy(5),
                    () -> System.nanoTime() - released > lease.multipliedBy(2).toNanos());
            assertThat(lock.isHeld()).isFalse();
            assertThat(next.isHeld()).isTrue();
        }
        assertThat(told).isEmpty();
    }

    /** A lock released before its minimum hold has passed stays taken until it has; then it is free. */
    @Test
    void aLockReleasedWithinItsMinimumHoldStaysTakenUntilItEnds() {
        String key = fresh("job");
        LockOptions options = LockOptions.lease(Duration.ofSeconds(10)).holdingAtLeast(Duration.ofMillis(500));
        LockHandle lock = instance(0).tryAcquire(key, options);
        assertThat(lock.release()).isTrue();

        assertThatThrownBy(() -> instance(1).tryAcquire(key, options))
                .isInstanceOfSatisfying(
                        LockNotAcquiredException.class,
                        e -> assertThat(e.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(500)));
        try (LockHandle next = acquireWithin(instance(1), key, Duration.ofSeconds(10))) {
            assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        }
    }

    /**
     * An extension can set a new minimum hold (ShedLock's {@code extend(lockAtMostFor, lockAtLeastFor)}): a release
     * before it ends keeps the lock taken until then, on the store's clock, though the lock was taken without one; then
     * it is free. Its durations are checked.
     */
    @Test
    void anExtensionSetsANewMinimumHoldThatAReleaseKeeps() {
        String key = fresh("job");
        LockOptions options = LockOptions.lease(Duration.ofSeconds(10));
        LockHandle lock = instance(0).tryAcquire(key, options);
        long extendedAt = System.nanoTime();
        assertThat(lock.extend(Duration.ofSeconds(20), Duration.ofSeconds(2))).isTrue();
        assertThat(lock.release()).isTrue();

        assertThatThrownBy(() -> instance(1).tryAcquire(key, options))
                .isInstanceOfSatisfying(
                        LockNotAcquiredException.class,
                        e -> assertThat(e.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2)));
        try (LockHandle next = acquireWithin(instance(1), key, Duration.ofSeconds(15))) {
            // never before the hold ended (a lower bound: a busy machine only makes it later); 50 ms for the clocks
            assertThat(Duration.ofNanos(System.nanoTime() - extendedAt))
                    .isGreaterThanOrEqualTo(Duration.ofMillis(1_950));
            assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
            assertThatThrownBy(() -> next.extend(Duration.ofSeconds(1), Duration.ofSeconds(2)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a lock's new minimum hold (atLeast) must be from zero to atMost PT1S, but was PT2S");
            assertThatThrownBy(() -> next.extendAsync(Duration.ofSeconds(1), Duration.ofMillis(-1))
                            .toCompletableFuture()
                            .join())
                    .hasRootCauseInstanceOf(IllegalArgumentException.class);
        }
    }

    /** A job runs through {@code runIfFree} only where the lock is free; a busy lock skips it. */
    @Test
    void runIfFreeSkipsAJobWhoseLockIsBusy() {
        String key = fresh("job");
        AtomicInteger runs = new AtomicInteger();
        LockOptions options = LockOptions.lease(Duration.ofSeconds(10));
        try (LockHandle held = instance(0).tryAcquire(key, options)) {
            assertThat(instance(1).runIfFree(key, options, runs::incrementAndGet))
                    .isFalse();
            assertThat(runs).hasValue(0);
            assertThat(held.isHeld()).isTrue();
        }
        assertThat(instance(1).runIfFree(key, options, lock -> {
                    assertThat(lock.isHeld()).isTrue();
                    runs.incrementAndGet();
                }))
                .isTrue();
        assertThat(runs).hasValue(1);
        try (LockHandle after = instance(0).tryAcquire(key, options)) {
            assertThat(after.isHeld()).as("released after the job").isTrue();
        }
    }

    /** Operators see a held lock (name, key, holder, fencing token) and free it; its holder is told. */
    @Test
    void anOperatorListsAndFreesAHeldLock() {
        String name = fresh("report");
        String key = LockManager.keyOf(name, io.github.ratelimit.core.ClientIdentifier.of("#userId", "42"));
        LockHandle lock = instance(0)
                .tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10)).named(name));
        List<LossReason> told = new CopyOnWriteArrayList<>();
        lock.whenLost(told::add);

        HeldLock listed = instance(1).heldLocks(10_000).stream()
                .filter(held -> held.name().equals(name))
                .findFirst()
                .orElseThrow();
        assertThat(listed.key()).isEqualTo(key);
        assertThat(listed.shownKey()).isEqualTo("42");
        assertThat(listed.fencingToken()).isEqualTo(lock.fencingToken());
        assertThat(listed.holder()).isNotBlank();
        assertThat(listed.leaseLeft()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(10));

        assertThat(instance(1).forceRelease(listed.key())).isTrue();
        Poll.until("the holder to be told", Duration.ofSeconds(10), () -> !told.isEmpty());
        assertThat(told).containsExactly(LossReason.RELEASED_BY_OPERATOR);
        assertThat(lock.isHeld()).isFalse();
        assertThat(instance(1).heldLocks(10_000)).noneMatch(held -> held.name().equals(name));
        assertThat(instance(1).forceRelease(key)).as("nothing left to release").isFalse();
        try (LockHandle next = instance(1).tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10)))) {
            assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        }
        assertThat(lock.release()).isFalse();
    }

    private static LockHandle acquireWithin(LockManager locks, String key, Duration within) {
        return locks.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10)).waitingUpTo(within));
    }
}
