package io.github.ratelimit.redis.locks;

import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.core.internal.LossCallbacks;
import io.github.ratelimit.core.internal.NestedLockHandle;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.locks.LockManager.LossReason;
import io.github.ratelimit.redis.internal.GiveBacks;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a lock, and its nested (re-entrant) handles on the same thread.
 *
 * <p>The holder's view of the lock ends before Redis's key can: each lease is counted from when its acquisition or
 * renewal was sent (monotonic time, and Redis starts its expiry only later), less a margin for the two clocks' drift
 * (1% of the lease and 2 ms, as Redlock allows). A timer on the watchdog fires at that end; if no renewal moved it, the
 * lock is lost and its holder told.
 */
final class RedisLock implements LockHandle {

    private final RedisLockManager manager;

    private final String key;
    private final String lockKey;
    private final String owner;
    private final long fencingToken;
    private final LockOptions options;
    private final @Nullable Thread thread; // the owning thread of a blocking acquisition, for re-entry; null if async
    private final AtomicBoolean released = new AtomicBoolean();
    private final AtomicReference<LossReason> loss = new AtomicReference<>();
    private final LossCallbacks lossCallbacks;
    private volatile long validUntil;
    /** When the lock's lifetime ends (JVM nanos): the acquisition's plus {@code maxLifetime}, until an extension. */
    private volatile long lifetimeEnds;
    /** Whether the lease now running ends at the lock's maximum lifetime (no renewal can follow it). */
    private volatile boolean finalLease;
    /** Whether an extension set a minimum hold ({@link #extend(Duration, Duration)}), which a release must keep. */
    private volatile boolean holdSetByExtension;

    private volatile @Nullable ScheduledFuture<?> deadline;
    private int holds = 1;

    RedisLock(
            RedisLockManager manager,
            String key,
            String lockKey,
            String owner,
            long fencingToken,
            LockOptions options,
            long sentAt,
            @Nullable Thread thread) {
        this.manager = manager;
        this.key = key;
        this.lossCallbacks = new LossCallbacks(key);
        this.thread = thread;
        this.lockKey = lockKey;
        this.owner = owner;
        this.fencingToken = fencingToken;
        this.options = options;
        this.validUntil =
                sentAt + options.lease().toNanos() - margin(options.lease().toNanos());
        this.finalLease = options.maxLifetime().equals(options.lease());
        this.lifetimeEnds = sentAt + options.maxLifetime().toNanos();
    }

    /** What the holder takes off each lease for the drift between its clock and Redis's: 1% and 2 ms, at most half. */
    static long margin(long leaseNanos) {
        return Math.min(leaseNanos / 2, leaseNanos / 100 + TimeUnit.MILLISECONDS.toNanos(2));
    }

    /** Starts watching for the end of the holder's view of the lock; done once the lock is handed out. */
    void watchDeadline() {
        scheduleDeadline();
        if (!finalLease) {
            scheduleRenewal();
        }
    }

    private void scheduleDeadline() {
        try {
            deadline = manager.watchdog.schedule(
                    this::deadlineReached, Math.max(0, validUntil - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            // the manager is closed: nothing watches any more, isHeld() still turns false at the lease's end
        }
    }

    private void deadlineReached() {
        if (released.get() || loss.get() != null) {
            return;
        }
        if (System.nanoTime() < validUntil) {
            scheduleDeadline(); // a renewal moved the end
            return;
        }
        lost(finalLease ? LossReason.LIFETIME_REACHED : LossReason.RENEWAL_FAILED);
    }

    /** The holder lost the lock: renewal stops and it is told, once; nothing after a release. */
    void lost(LossReason reason) {
        synchronized (released) { // against a release at the same moment: a released lock is never told lost
            if (released.get() || !loss.compareAndSet(null, reason)) {
                return;
            }
        }
        stopWatching();
        RedisLockManager.log.warn(
                "Lock {} was lost before its holder finished: {}", LockManager.quotedKey(key), reason);
        manager.events.lockLost(RedisLockManager.nameOf(options), reason);
        lossCallbacks.tellAll(reason);
    }

    @Override
    public void whenLost(Consumer<LossReason> callback) {
        lossCallbacks.add(callback, loss::get);
    }

    String owner() {
        return owner;
    }

    LockHandle nested() {
        holds++;
        return new NestedLockHandle(this, () -> holds--);
    }

    private void scheduleRenewal() {
        long period = Math.max(1, options.lease().toMillis() / 3);
        try {
            manager.activeRenewals.put(
                    this, manager.watchdog.scheduleAtFixedRate(this::renew, period, period, TimeUnit.MILLISECONDS));
        } catch (RejectedExecutionException closed) {
            // the manager is closed (the application stops): as for the deadline, the lease ends by itself
        }
    }

    /**
     * Sends a renewal, without waiting for it: the watchdog thread only sends, so that no slow answer delays another
     * lock's renewal or deadline. A renewal that fails is sent again at the next period, within the lease (two more
     * tries); when none gets through, the deadline tells the holder.
     */
    private void renew() {
        long now = System.nanoTime();
        long lifetimeLeft = lifetimeEnds - now;
        if (released.get() || loss.get() != null || lifetimeLeft <= 0) {
            stopRenewal();
            return;
        }
        long lease = Math.min(options.lease().toMillis(), TimeUnit.NANOSECONDS.toMillis(lifetimeLeft));
        if (lease < 1) {
            stopRenewal();
            return;
        }
        boolean last = lease < options.lease().toMillis();
        manager.renewalsSent.incrementAndGet();
        manager.executor
                .callAsync(RedisLockManager.RENEW, lockKeys(), renewArgs(lease))
                .whenComplete((reply, error) -> {
                    if (error != null) {
                        RedisLockManager.log.warn(
                                "Could not renew lock {}; sent again within its lease",
                                LockManager.quotedKey(key),
                                Futures.cause(error));
                    } else if (ScriptExecutor.number(reply.get(0)) == 1) {
                        long until = now
                                + TimeUnit.MILLISECONDS.toNanos(lease)
                                - margin(TimeUnit.MILLISECONDS.toNanos(lease));
                        if (until > validUntil && loss.get() == null) {
                            finalLease = last;
                            validUntil = until;
                        }
                        if (last) {
                            stopRenewal();
                        }
                    } else {
                        lost(LossReason.TAKEN_OVER);
                    }
                });
    }

    @Override
    public boolean extend(Duration atMost) {
        return extend(atMost, Duration.ZERO);
    }

    @Override
    public CompletableFuture<Boolean> extendAsync(Duration atMost) {
        return extendAsync(atMost, Duration.ZERO);
    }

    @Override
    public boolean extend(Duration atMost, Duration atLeast) {
        long sentAt = System.nanoTime();
        long leaseMs = extensionLease(atMost, atLeast);
        if (!isHeld()) {
            return false;
        }
        holdExtended(atLeast);
        return extended(
                manager.executor.call(RedisLockManager.RENEW, lockKeys(), extendArgs(leaseMs, atLeast)),
                sentAt,
                atMost,
                leaseMs);
    }

    @Override
    public CompletableFuture<Boolean> extendAsync(Duration atMost, Duration atLeast) {
        long sentAt = System.nanoTime();
        long leaseMs;
        try {
            leaseMs = extensionLease(atMost, atLeast);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (!isHeld()) {
            return CompletableFuture.completedFuture(false);
        }
        holdExtended(atLeast);
        return manager.executor
                .callAsync(RedisLockManager.RENEW, lockKeys(), extendArgs(leaseMs, atLeast))
                .thenApply(reply -> extended(reply, sentAt, atMost, leaseMs));
    }

    /**
     * Whether an extension may have set a minimum hold in the lock's description: its release then asks Redis for it.
     * Set before the extension is sent, so a release that follows at once never misses it.
     */
    private void holdExtended(Duration atLeast) {
        if (!atLeast.isZero()) {
            holdSetByExtension = true;
        }
    }

    /** The lease an extension sets: a step of the renewed lease, or the whole new lifetime of a lock not renewed. */
    private long extensionLease(Duration atMost, Duration atLeast) {
        LockHandle.checkExtension(atMost, atLeast);
        boolean renewed = options.lease().compareTo(options.maxLifetime()) < 0;
        return renewed ? Math.min(options.lease().toMillis(), atMost.toMillis()) : atMost.toMillis();
    }

    private boolean extended(List<Object> reply, long sentAt, Duration atMost, long leaseMs) {
        if (ScriptExecutor.number(reply.get(0)) != 1) {
            lost(LossReason.TAKEN_OVER);
            return false;
        }
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMs);
        synchronized (released) {
            if (released.get() || loss.get() != null) {
                return false;
            }
            lifetimeEnds = sentAt + atMost.toNanos();
            validUntil = sentAt + leaseNanos - margin(leaseNanos);
            finalLease = leaseNanos >= atMost.toNanos();
        }
        ScheduledFuture<?> timer = deadline;
        if (timer != null) {
            timer.cancel(false);
        }
        scheduleDeadline();
        if (!finalLease && !manager.activeRenewals.containsKey(this)) {
            scheduleRenewal();
        }
        return true;
    }

    private Object[] renewArgs(long leaseMs) {
        return new Object[] {owner, Long.toString(leaseMs)};
    }

    private Object[] extendArgs(long leaseMs, Duration atLeast) {
        return new Object[] {owner, Long.toString(leaseMs), Long.toString(atLeast.toMillis())};
    }

    /** Released or lost: no renewal, no deadline, and no longer among the manager's held locks. */
    private void stopWatching() {
        stopRenewal();
        ScheduledFuture<?> timer = deadline;
        if (timer != null) {
            timer.cancel(false);
        }
        manager.forget(this);
    }

    private void stopRenewal() {
        ScheduledFuture<?> renewal = manager.activeRenewals.remove(this);
        if (renewal != null) {
            renewal.cancel(false);
        }
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public long fencingToken() {
        return fencingToken;
    }

    @Override
    public boolean isHeld() {
        return !released.get() && loss.get() == null && System.nanoTime() < validUntil;
    }

    @Override
    public boolean release() {
        Boolean answered = releaseLocally();
        if (answered != null) {
            return answered;
        }
        try {
            return released(manager.executor.call(RedisLockManager.RELEASE, lockKeys(), releaseArgs()));
        } catch (RedisUnavailableException e) {
            return notReleased(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync() {
        Boolean answered = releaseLocally();
        if (answered != null) {
            return CompletableFuture.completedFuture(answered);
        }
        return manager.executor
                .callAsync(RedisLockManager.RELEASE, lockKeys(), releaseArgs())
                .handle((reply, error) -> {
                    if (error == null) {
                        return released(reply);
                    }
                    Throwable cause = Futures.cause(error);
                    if (cause instanceof RedisUnavailableException unavailable) {
                        return notReleased(unavailable);
                    }
                    throw cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
                });
    }

    /**
     * The answer of a release that needs no Redis call (already released, or a nested hold on the owning thread),
     * or null when this call is the one that releases: it stops renewal and forgets the thread's hold.
     */
    private @Nullable Boolean releaseLocally() {
        if (released.get()) {
            return false;
        }
        if (holds > 1 && Thread.currentThread() == thread) {
            holds--;
            return isHeld();
        }
        synchronized (released) {
            if (!released.compareAndSet(false, true)) {
                return false;
            }
        }
        stopWatching();
        if (thread != null && Thread.currentThread() == thread) {
            manager.heldByThread.get().remove(key, this);
        }
        return null;
    }

    /** The lock's key and its description's: what a renewal, an extension and a release act on. */
    private List<Object> lockKeys() {
        return List.of(lockKey, RedisKeys.descriptionKey(lockKey));
    }

    private Object[] releaseArgs() {
        return new Object[] {
            owner,
            manager.keys.lockReleasedChannel(),
            Long.toString(options.minHold().toMillis()),
            holdSetByExtension ? "1" : "0"
        };
    }

    private boolean released(List<Object> reply) {
        boolean wasOurs = ScriptExecutor.number(reply.get(0)) == 1;
        if (!wasOurs) {
            RedisLockManager.log.warn(
                    "Lock {} had expired or been taken by another holder when released", LockManager.quotedKey(key));
        }
        return wasOurs;
    }

    /**
     * A release Redis did not answer is sent again until it is (idempotent: it deletes the lock only while this
     * owner holds it), so that waiters need not wait out the lease; counted and, when it still fails, logged by
     * {@link GiveBacks}.
     */
    private boolean notReleased(RedisUnavailableException e) {
        RedisLockManager.log.debug("Lock {} not released yet; sent again", LockManager.quotedKey(key), e);
        GiveBacks.send(
                manager.events,
                "lock",
                () -> manager.executor.callAsync(RedisLockManager.RELEASE, lockKeys(), releaseArgs()),
                reply -> ScriptExecutor.number(reply.get(0)) == 1);
        return false;
    }
}
