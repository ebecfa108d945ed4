package io.github.ratelimit.redis;

import io.github.ratelimit.core.LockManager.LockHandle;
import io.github.ratelimit.core.LockManager.LockOptions;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.internal.Futures;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** One acquisition of a lock, and its nested (re-entrant) handles on the same thread. */
final class RedisLock implements LockHandle {

    private final RedisLockManager manager;

    private final String key;
    private final String lockKey;
    private final String owner;
    private final long fencingToken;
    private final LockOptions options;
    private final long acquiredAt;
    private final Thread thread; // the owning thread of a blocking acquisition, for re-entry; null if async
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile long validUntil;
    private volatile boolean lost;
    private int holds = 1;

    RedisLock(
            RedisLockManager manager,
            String key,
            String lockKey,
            String owner,
            long fencingToken,
            LockOptions options,
            long sentAt,
            Thread thread) {
        this.manager = manager;
        this.key = key;
        this.thread = thread;
        this.lockKey = lockKey;
        this.owner = owner;
        this.fencingToken = fencingToken;
        this.options = options;
        this.acquiredAt = sentAt;
        this.validUntil = sentAt + options.lease().toNanos();
    }

    LockHandle nested() {
        holds++;
        return new LockHandle() {
            private boolean done;

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
                return RedisLock.this.isHeld();
            }

            @Override
            public boolean release() {
                if (done) {
                    return false;
                }
                done = true;
                holds--;
                return RedisLock.this.isHeld();
            }
        };
    }

    void scheduleRenewal() {
        long period = Math.max(1, options.lease().toMillis() / 3);
        manager.activeRenewals.put(
                this, manager.watchdog.scheduleAtFixedRate(this::renew, period, period, TimeUnit.MILLISECONDS));
    }

    private void renew() {
        long now = System.nanoTime();
        long lifetimeLeft = acquiredAt + options.maxLifetime().toNanos() - now;
        if (released.get() || lost || lifetimeLeft <= 0) {
            stopRenewal();
            return;
        }
        long lease = Math.min(options.lease().toMillis(), TimeUnit.NANOSECONDS.toMillis(lifetimeLeft));
        if (lease < 1) {
            stopRenewal();
            return;
        }
        try {
            List<Object> reply = manager.executor.call(
                    RedisLockManager.RENEW, List.of(lockKey), new Object[] {owner, Long.toString(lease)});
            if (ScriptExecutor.number(reply.get(0)) == 1) {
                validUntil = now + TimeUnit.MILLISECONDS.toNanos(lease);
            } else {
                lost = true;
                stopRenewal();
                RedisLockManager.log.warn(
                        "Lock '{}' was lost before its holder finished (lease ran out or taken over)", key);
            }
        } catch (RuntimeException e) {
            RedisLockManager.log.warn("Could not renew lock '{}'; it stays held until its current lease ends", key, e);
        }
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
        return !released.get() && !lost && System.nanoTime() < validUntil;
    }

    @Override
    public boolean release() {
        Boolean answered = releaseLocally();
        if (answered != null) {
            return answered;
        }
        try {
            return released(manager.executor.call(RedisLockManager.RELEASE, List.of(lockKey), releaseArgs()));
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
                .callAsync(RedisLockManager.RELEASE, List.of(lockKey), releaseArgs())
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
    private Boolean releaseLocally() {
        if (released.get()) {
            return false;
        }
        if (holds > 1 && Thread.currentThread() == thread) {
            holds--;
            return isHeld();
        }
        if (!released.compareAndSet(false, true)) {
            return false;
        }
        stopRenewal();
        if (thread != null && Thread.currentThread() == thread) {
            manager.heldByThread.get().remove(key, this);
        }
        return null;
    }

    private Object[] releaseArgs() {
        return new Object[] {owner, manager.keys.lockReleasedChannel()};
    }

    private boolean released(List<Object> reply) {
        boolean wasOurs = ScriptExecutor.number(reply.get(0)) == 1;
        if (!wasOurs) {
            RedisLockManager.log.warn("Lock '{}' had expired or been taken by another holder when released", key);
        }
        return wasOurs;
    }

    /**
     * A release Redis did not answer is sent again until it is (idempotent: it deletes the lock only while this
     * owner holds it), so that waiters need not wait out the lease; counted and, when it still fails, logged by
     * {@link GiveBacks}.
     */
    private boolean notReleased(RedisUnavailableException e) {
        RedisLockManager.log.debug("Lock '{}' not released yet; sent again", key, e);
        GiveBacks.send(
                manager.events,
                "lock",
                () -> manager.executor.callAsync(RedisLockManager.RELEASE, List.of(lockKey), releaseArgs()),
                reply -> ScriptExecutor.number(reply.get(0)) == 1);
        return false;
    }
}
