package io.github.ratelimit.redis;

import io.github.ratelimit.core.LockHandle;
import io.github.ratelimit.core.LockManager;
import io.github.ratelimit.core.LockNotAcquiredException;
import io.github.ratelimit.core.LockOptions;
import io.github.ratelimit.core.RedisUnavailableException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks in Redis: {@code SET NX PX} with a random 128-bit owner and a fencing token in one script;
 * compare-and-delete release; a watchdog that renews held locks up to their maximum lifetime. Waiters are
 * woken by a release announcement (pub/sub), with a bounded, jittered back-off as a fallback.
 */
public final class RedisLockManager implements LockManager, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisLockManager.class);

    static final LuaScript ACQUIRE = LuaScript.load("lock_acquire");
    static final LuaScript RELEASE = LuaScript.load("lock_release");
    static final LuaScript RENEW = LuaScript.load("lock_renew");
    private static final long FENCE_TTL_MS = Duration.ofDays(1).toMillis();
    private static final long MAX_BACKOFF_MS = 50;

    private final RedissonClient redisson;
    private final ScriptExecutor executor;
    private final RedisKeys keys;
    private final SecureRandom random = new SecureRandom();
    private final ScheduledExecutorService watchdog;
    private final Map<String, Set<CountDownLatch>> waiters = new ConcurrentHashMap<>();
    private final Map<RedisLock, ScheduledFuture<?>> activeRenewals = new ConcurrentHashMap<>();
    private final ThreadLocal<Map<String, RedisLock>> heldByThread = ThreadLocal.withInitial(HashMap::new);
    private volatile RTopic releases;

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     * @param guard the latency budget and circuit breaker, shared by everything that uses this Redis
     */
    public RedisLockManager(RedissonClient redisson, String keyPrefix, RedisGuard guard) {
        this.redisson = redisson;
        this.executor = new ScriptExecutor(redisson, guard);
        this.keys = new RedisKeys(keyPrefix);
        this.watchdog = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ratelimit-lock-watchdog");
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public LockHandle tryAcquire(String key, LockOptions options) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("lock key must not be null or empty");
        }
        RedisLock held = heldByThread.get().get(key);
        if (held != null && held.isHeld()) {
            return held.nested();
        }
        String tag = RedisKeys.tag(key);
        String lockKey = keys.lockKey(tag);
        List<Object> lockKeys = List.of(lockKey, keys.fenceKey(tag));
        long deadline = System.nanoTime() + options.maxWait().toNanos();
        long backoff = 1;
        CountDownLatch wake = null;
        try {
            while (true) {
                String owner = owner();
                long sentAt = System.nanoTime();
                List<Object> reply = executor.call(ACQUIRE, lockKeys, new Object[] {
                    owner, Long.toString(options.lease().toMillis()), Long.toString(FENCE_TTL_MS)
                });
                if (ScriptExecutor.number(reply.get(0)) == 1) {
                    RedisLock lock =
                            new RedisLock(key, lockKey, owner, ScriptExecutor.number(reply.get(1)), options, sentAt);
                    heldByThread.get().put(key, lock);
                    if (options.maxLifetime().compareTo(options.lease()) > 0) {
                        lock.scheduleRenewal();
                    }
                    return lock;
                }
                long remainingLease = Math.max(1, ScriptExecutor.number(reply.get(1)));
                long waitLeft = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (waitLeft <= 0) {
                    throw new LockNotAcquiredException(key, Duration.ofMillis(remainingLease));
                }
                if (wake == null) {
                    // listen before the next attempt, so that a release between attempt and wait is not missed
                    wake = listen(lockKey);
                    continue;
                }
                backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
                long pause = Math.min(
                        Math.min(waitLeft, remainingLease),
                        backoff + ThreadLocalRandom.current().nextLong(backoff));
                if (!wake.await(pause, TimeUnit.MILLISECONDS)) {
                    continue; // no announcement: try again after the back-off
                }
                unlisten(lockKey, wake);
                wake = listen(lockKey);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockNotAcquiredException(key, Duration.ZERO);
        } finally {
            if (wake != null) {
                unlisten(lockKey, wake);
            }
        }
    }

    private CountDownLatch listen(String lockKey) {
        subscribe();
        CountDownLatch latch = new CountDownLatch(1);
        waiters.computeIfAbsent(lockKey, k -> ConcurrentHashMap.newKeySet()).add(latch);
        return latch;
    }

    private void unlisten(String lockKey, CountDownLatch latch) {
        waiters.computeIfPresent(lockKey, (k, latches) -> {
            latches.remove(latch);
            return latches.isEmpty() ? null : latches;
        });
    }

    private void subscribe() {
        if (releases == null) {
            synchronized (this) {
                if (releases == null) {
                    RTopic topic = redisson.getTopic(keys.lockReleasedChannel(), StringCodec.INSTANCE);
                    topic.addListener(String.class, (channel, releasedKey) -> {
                        Set<CountDownLatch> latches = waiters.get(releasedKey);
                        if (latches != null) {
                            // wake every waiter of this key; only one of them wins the SET NX
                            latches.forEach(CountDownLatch::countDown);
                        }
                    });
                    releases = topic;
                }
            }
        }
    }

    private String owner() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** How many callers of this manager wait for a release of the lock key (as stored in Redis). */
    int listening(String lockKey) {
        Set<CountDownLatch> latches = waiters.get(lockKey);
        return latches == null ? 0 : latches.size();
    }

    /** How many locks of this manager are being renewed right now. */
    int renewing() {
        return (int) activeRenewals.values().stream().filter(f -> !f.isDone()).count();
    }

    @Override
    public void close() {
        watchdog.shutdownNow();
        RTopic topic = releases;
        if (topic != null && !redisson.isShutdown()) {
            try {
                topic.removeAllListeners();
            } catch (RuntimeException e) {
                log.debug("Could not unsubscribe from lock releases", e);
            }
        }
    }

    /** One acquisition of a lock, and its nested (re-entrant) handles on the same thread. */
    private final class RedisLock implements LockHandle {

        private final String key;
        private final String lockKey;
        private final String owner;
        private final long fencingToken;
        private final LockOptions options;
        private final long acquiredAt;
        private final Thread thread = Thread.currentThread();
        private volatile long validUntil;
        private volatile boolean released;
        private volatile boolean lost;
        private int holds = 1;

        RedisLock(String key, String lockKey, String owner, long fencingToken, LockOptions options, long sentAt) {
            this.key = key;
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
            activeRenewals.put(this, watchdog.scheduleAtFixedRate(this::renew, period, period, TimeUnit.MILLISECONDS));
        }

        private void renew() {
            long now = System.nanoTime();
            long lifetimeLeft = acquiredAt + options.maxLifetime().toNanos() - now;
            if (released || lost || lifetimeLeft <= 0) {
                stopRenewal();
                return;
            }
            long lease = Math.min(options.lease().toMillis(), TimeUnit.NANOSECONDS.toMillis(lifetimeLeft));
            if (lease < 1) {
                stopRenewal();
                return;
            }
            try {
                List<Object> reply = executor.call(RENEW, List.of(lockKey), new Object[] {owner, Long.toString(lease)});
                if (ScriptExecutor.number(reply.get(0)) == 1) {
                    validUntil = now + TimeUnit.MILLISECONDS.toNanos(lease);
                } else {
                    lost = true;
                    stopRenewal();
                    log.warn("Lock '{}' was lost before its holder finished (lease ran out or taken over)", key);
                }
            } catch (RuntimeException e) {
                log.warn("Could not renew lock '{}'; it stays held until its current lease ends", key, e);
            }
        }

        private void stopRenewal() {
            ScheduledFuture<?> renewal = activeRenewals.remove(this);
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
            return !released && !lost && System.nanoTime() < validUntil;
        }

        @Override
        public boolean release() {
            if (released) {
                return false;
            }
            if (holds > 1 && Thread.currentThread() == thread) {
                holds--;
                return isHeld();
            }
            released = true;
            stopRenewal();
            if (Thread.currentThread() == thread) {
                heldByThread.get().remove(key, this);
            }
            List<Object> reply;
            try {
                reply = executor.call(RELEASE, List.of(lockKey), new Object[] {owner, keys.lockReleasedChannel()});
            } catch (RedisUnavailableException e) {
                log.warn("Could not release lock '{}'; it expires within its lease", key, e);
                return false;
            }
            boolean wasOurs = ScriptExecutor.number(reply.get(0)) == 1;
            if (!wasOurs) {
                log.warn("Lock '{}' had expired or been taken by another holder when released", key);
            }
            return wasOurs;
        }
    }
}
