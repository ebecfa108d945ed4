package io.github.ratelimit.test.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.LockManager;
import io.github.ratelimit.core.LockManager.LockHandle;
import io.github.ratelimit.core.LockManager.LockOptions;
import io.github.ratelimit.core.LockNotAcquiredException;
import io.github.ratelimit.test.support.Poll;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The promises of a {@link LockManager}, for any store: extend it, make the lock manager in {@link #newInstance()}.
 * One holder at a time across instances; a busy lock is refused with its remaining lease; a lock is released only by
 * its owner (a holder whose lease ran out cannot remove its successor's lock); fencing tokens strictly increase; a
 * lock ends at its lifetime however long its holder runs.
 */
public abstract class LockManagerContract extends TwoInstances<LockManager> {

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

    private static LockHandle acquireWithin(LockManager locks, String key, Duration within) {
        return locks.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10)).waitingUpTo(within));
    }
}
