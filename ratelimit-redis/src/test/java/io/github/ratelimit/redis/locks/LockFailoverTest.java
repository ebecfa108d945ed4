package io.github.ratelimit.redis.locks;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.locks.LockManager.LossReason;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.test.kit.Poll;
import io.github.ratelimit.test.support.RawRedis;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * A lock held through a primary's crash and its replica's promotion (redisson #775): with durable locks (each
 * acquisition acknowledged by the replica) the lock is still taken on the promoted replica, its former holder (cut off
 * with the primary) is told it lost it, and another instance gets it only once that holder no longer believes it holds
 * it: never two holders that both believe they hold.
 */
class LockFailoverTest {

    @Test
    void aDurableLockSurvivesAFailoverAndNeverHasTwoHoldersThatBothBelieveIt() throws Exception {
        RedisProcess primary = RedisProcess.start();
        try (RedisProcess replica = RedisProcess.start(List.of("replicaof 127.0.0.1 " + primary.port()))) {
            Poll.until("the replica in sync", Duration.ofSeconds(30), () -> RawRedis.command(
                            replica.port(), "INFO", "replication")
                    .contains("master_link_status:up"));
            RedissonClient onPrimary = primary.newClient();
            RedisLockManager holderSide = new RedisLockManager(
                    onPrimary,
                    "failover:",
                    new RedisGuard(Duration.ofMillis(500), 5, Duration.ofSeconds(1)),
                    Duration.ofMillis(200));
            LockHandle held = holderSide.tryAcquire(
                    "nightly", LockOptions.lease(Duration.ofMillis(1_500)).renewedUpTo(Duration.ofSeconds(60)));
            List<LossReason> told = new CopyOnWriteArrayList<>();
            held.whenLost(told::add);

            primary.crash();
            long crashedAt = System.nanoTime();
            RawRedis.command(replica.port(), "REPLICAOF", "NO", "ONE");
            RedissonClient onReplica = replica.newClient();
            RedisLockManager other = new RedisLockManager(onReplica, "failover:", Guards.patient());

            boolean busyRightAfter;
            try (LockHandle ignored = other.tryAcquire("nightly", LockOptions.lease(Duration.ofSeconds(5)))) {
                busyRightAfter = false;
            } catch (LockNotAcquiredException busy) {
                busyRightAfter = true;
            }
            AtomicReference<LockHandle> successor = new AtomicReference<>();
            AtomicReference<Boolean> formerBelievedThen = new AtomicReference<>();
            Poll.until("the other instance to take the lock", Duration.ofSeconds(15), () -> {
                try {
                    successor.set(other.tryAcquire("nightly", LockOptions.lease(Duration.ofSeconds(5))));
                    formerBelievedThen.set(held.isHeld());
                    return true;
                } catch (LockNotAcquiredException | RedisUnavailableException busy) {
                    return false;
                }
            });
            long takenAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashedAt);
            System.out.printf(
                    "failover with a durable lock (lease 1500 ms): on the promoted replica right after, busy %s; the"
                            + " former holder told %s; another instance took it %d ms after the crash, the former"
                            + " holder then believing it held it: %s; tokens %d -> %d%n",
                    busyRightAfter,
                    told,
                    takenAfterMs,
                    formerBelievedThen.get(),
                    held.fencingToken(),
                    successor.get().fencingToken());

            assertThat(busyRightAfter).as("the lock survived the failover").isTrue();
            assertThat(formerBelievedThen.get())
                    .as("two holders that both believe they hold")
                    .isFalse();
            assertThat(told).containsExactly(LossReason.RENEWAL_FAILED);
            assertThat(successor.get().fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(successor.get().release()).isTrue();
            holderSide.close();
            other.close();
            onPrimary.shutdown();
            onReplica.shutdown();
        } finally {
            primary.close();
        }
    }
}
