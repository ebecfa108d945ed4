package io.github.ratelimit.redis.locks;

import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.core.internal.LockHolders;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.locks.LockManager.LossReason;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.BudgetTimer;
import io.github.ratelimit.redis.internal.GiveBacks;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.internal.Replicas;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locks in Redis: {@code SET NX PX} with a unique 128-bit owner and a fencing token in one script;
 * compare-and-delete release; a watchdog that renews held locks up to their maximum lifetime. Waiters are
 * woken by a release announcement (pub/sub), with a bounded, jittered back-off as a fallback.
 *
 * <p>Why not Redisson's {@code RLock} or {@code RFencedLock}: they are owned by a thread (the owner is the client id and
 * thread id), so a lock taken by a reactive pipeline or a {@code CompletionStage} cannot be released from the thread it
 * ends on; their watchdog renews a lock for as long as its holder lives, with no maximum lifetime; and only
 * {@code RFencedLock} has a fencing token. Here the owner is a random 128-bit handle, renewals stop at the lock's
 * maximum lifetime, and every lock has a fencing token.
 */
public final class RedisLockManager implements LockManager, RateLimitEvents.Source, AutoCloseable {

    final RateLimitEvents events = new RateLimitEvents();

    static final Logger log = LoggerFactory.getLogger(RedisLockManager.class);

    static final LuaScript ACQUIRE =
            LuaScript.load(RedisLockManager.class, "lock_acquire").keptLoaded();
    static final LuaScript RELEASE =
            LuaScript.load(RedisLockManager.class, "lock_release").keptLoaded();
    static final LuaScript GIVE_BACK = LuaScript.load(RedisLockManager.class, "lock_giveback");
    static final LuaScript RENEW =
            LuaScript.load(RedisLockManager.class, "lock_renew").keptLoaded();
    static final LuaScript REVOKE = LuaScript.load(RedisLockManager.class, "lock_revoke");
    static final LuaScript DESCRIBE = LuaScript.load(RedisLockManager.class, "lock_describe");
    private static final long FENCE_TTL_MS = Duration.ofDays(1).toMillis();
    private static final long MAX_BACKOFF_MS = 50;

    private final RedissonClient redisson;
    final ScriptExecutor executor;
    final RedisKeys keys;
    /** Owners are this manager's random 64 bits and a counter: unique everywhere, and made without blocking. */
    private final long ownerPrefix = new SecureRandom().nextLong();

    private final AtomicLong owners = new AtomicLong();
    final ScheduledExecutorService watchdog;
    private final Map<String, Set<Runnable>> waiters = new ConcurrentHashMap<>();
    final Map<RedisLock, ScheduledFuture<?>> activeRenewals = new ConcurrentHashMap<>();
    final ThreadLocal<Map<String, RedisLock>> heldByThread = ThreadLocal.withInitial(HashMap::new);
    /** The locks this manager holds, by owner: what an operator's release, announced by owner, is matched against. */
    private final Map<String, RedisLock> held = new ConcurrentHashMap<>();
    /** Renewals sent since this manager was made (tests count them). */
    final AtomicLong renewalsSent = new AtomicLong();

    private final String holder;
    /** Releases announced by lock key: every waiter of the key is woken; only one of them wins the SET NX. */
    private final Subscription releases;
    /**
     * Operators' releases announced by owner: the holder is told it lost the lock (a holder whose announcement is missed
     * learns it at its next renewal).
     */
    private final Subscription revocations;

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     * @param guard the latency budget and circuit breaker, shared by everything that uses this Redis
     */
    public RedisLockManager(RedissonClient redisson, String keyPrefix, RedisGuard guard) {
        this(redisson, keyPrefix, guard, Duration.ZERO);
    }

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     * @param guard the latency budget and circuit breaker, shared by everything that uses this Redis
     * @param replicaWait how long an acquisition waits for a replica to acknowledge it before it is reported (zero:
     *     never waits); shorter than the guard's budget. A lock no replica acknowledged in time is released and the
     *     acquisition fails with {@link RedisUnavailableException}: a failover could grant it to a second holder.
     *     Costs nothing while no master has a replica connected.
     */
    public RedisLockManager(RedissonClient redisson, String keyPrefix, RedisGuard guard, Duration replicaWait) {
        this(redisson, keyPrefix, guard, replicaWait, holder(""));
    }

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     * @param guard the latency budget and circuit breaker, shared by everything that uses this Redis
     * @param replicaWait see {@link #RedisLockManager(RedissonClient, String, RedisGuard, Duration)}
     * @param holder how this instance is named to operators listing the locks it holds, such as
     *     {@code orders@host-1:8080}; at most 200 characters
     */
    public RedisLockManager(
            RedissonClient redisson, String keyPrefix, RedisGuard guard, Duration replicaWait, String holder) {
        Replicas.checkWait(replicaWait, guard, "ratelimit.durability.locks");
        if (holder == null || holder.isBlank() || holder.length() > 200) {
            throw new IllegalArgumentException(
                    "the lock holder's name must be 1 to 200 characters, but was '" + Messages.printable(holder) + "'");
        }
        this.holder = holder;
        this.redisson = redisson;
        this.executor = new ScriptExecutor(redisson, guard, replicaWait);
        this.keys = new RedisKeys(keyPrefix);
        this.releases = new Subscription(
                redisson,
                keys.lockReleasedChannel(),
                (channel, releasedKey) -> {
                    Set<Runnable> wakers = waiters.get(releasedKey);
                    if (wakers != null) {
                        wakers.forEach(Runnable::run);
                    }
                },
                "a caller waiting for a lock learns of its release by trying again, not at once");
        this.revocations = new Subscription(
                redisson,
                keys.lockRevokedChannel(),
                (channel, owner) -> {
                    RedisLock lock = held.get(owner);
                    if (lock != null) {
                        lock.lost(LossReason.RELEASED_BY_OPERATOR);
                    }
                },
                "a holder whose lock an operator frees learns of it at its next renewal, not at once");

        this.watchdog = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ratelimit-lock-watchdog");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * How an instance is named to operators listing its locks: the application's name, if any, and the JVM's
     * {@code pid@host}, at most 200 characters.
     */
    public static String holder(String applicationName) {
        return LockHolders.of(applicationName);
    }

    /** A lock's name for events: its options' name ({@code @Locked}'s), never its key. */
    static String nameOf(LockOptions options) {
        return options == null || options.name() == null ? "programmatic" : options.name();
    }

    /** Where listeners of this implementation's events are added. */
    @Override
    public RateLimitEvents events() {
        return events;
    }

    @Override
    public LockHandle tryAcquire(String key, LockOptions options) {
        return RateLimitEvents.observe(events.acquiringLock(nameOf(options)), () -> tryAcquireNow(key, options));
    }

    private LockHandle tryAcquireNow(String key, LockOptions options) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException(Messages.empty("lock key"));
        }
        RedisLock held = options.reentrant() ? heldByThread.get().get(key) : null;
        if (held != null && held.isHeld()) {
            return held.nested();
        }
        String tag = RedisKeys.tag(key);
        String lockKey = keys.lockKey(tag);
        List<Object> lockKeys = acquireKeys(tag, lockKey);
        long deadline = System.nanoTime() + options.maxWait().toNanos();
        long backoff = 1;
        Waiter wake = null;
        try {
            while (true) {
                String owner = owner();
                long sentAt = System.nanoTime();
                ScriptExecutor.Acknowledged answer;
                try {
                    answer = executor.callAcknowledged(ACQUIRE, lockKeys, acquireArgs(key, owner, options));
                } catch (RedisUnavailableException e) {
                    giveBack(lockKey, owner, options); // the lock may have been taken, its answer lost
                    throw e;
                }
                List<Object> reply = answer.reply();
                if (ScriptExecutor.number(reply.get(0)) == 1) {
                    if (!answer.byReplica()) {
                        throw notAcknowledged(key, lockKey, owner, options);
                    }
                    RedisLock lock = new RedisLock(
                            this,
                            key,
                            lockKey,
                            owner,
                            ScriptExecutor.number(reply.get(1)),
                            options,
                            sentAt,
                            Thread.currentThread());
                    heldByThread.get().put(key, lock);
                    hold(lock);
                    lock.watchDeadline();
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
                if (!wake.latch().await(pause, TimeUnit.MILLISECONDS)) {
                    continue; // no announcement: try again after the back-off
                }
                unlisten(lockKey, wake.waker());
                wake = listen(lockKey);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockNotAcquiredException(key, Duration.ZERO);
        } finally {
            if (wake != null) {
                unlisten(lockKey, wake.waker());
            }
        }
    }

    /**
     * The same acquisition without blocking: attempts are script calls whose replies continue the loop, and the waits
     * between them are timers or release announcements, so no thread waits. A cancelled result stops the attempts, and
     * a lock acquired after the caller gave up is released at once.
     */
    @Override
    public CompletableFuture<LockHandle> tryAcquireAsync(String key, LockOptions options) {
        return RateLimitEvents.observeAsync(
                events.acquiringLock(nameOf(options)), () -> tryAcquireNowAsync(key, options));
    }

    private CompletableFuture<LockHandle> tryAcquireNowAsync(String key, LockOptions options) {
        if (key == null || key.isEmpty()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(Messages.empty("lock key")));
        }
        CompletableFuture<LockHandle> result = new CompletableFuture<>();
        new AsyncAttempts(key, options, result).attempt();
        return result;
    }

    /** The attempts of one non-blocking acquisition. */
    private final class AsyncAttempts {

        private final String key;
        private final String lockKey;
        private final List<Object> lockKeys;
        private final LockOptions options;
        private final CompletableFuture<LockHandle> result;
        private final long deadline;
        private long backoff = 1;
        private @Nullable CompletableFuture<Void> wake;
        private @Nullable Runnable waker;

        AsyncAttempts(String key, LockOptions options, CompletableFuture<LockHandle> result) {
            String tag = RedisKeys.tag(key);
            this.key = key;
            this.lockKey = keys.lockKey(tag);
            this.lockKeys = acquireKeys(tag, lockKey);
            this.options = options;
            this.result = result;
            this.deadline = System.nanoTime() + options.maxWait().toNanos();
        }

        void attempt() {
            if (result.isDone()) {
                stopListening();
                return;
            }
            String owner = owner();
            long sentAt = System.nanoTime();
            executor.callAcknowledgedAsync(ACQUIRE, lockKeys, acquireArgs(key, owner, options))
                    .whenComplete((answer, error) -> {
                        if (error != null) {
                            stopListening();
                            if (Futures.cause(error) instanceof RedisUnavailableException) {
                                giveBack(lockKey, owner, options); // the lock may have been taken, its answer lost
                            }
                            result.completeExceptionally(Futures.cause(error));
                            return;
                        }
                        List<Object> reply = answer.reply();
                        if (ScriptExecutor.number(reply.get(0)) == 1 && !answer.byReplica()) {
                            stopListening();
                            result.completeExceptionally(notAcknowledged(key, lockKey, owner, options));
                        } else if (ScriptExecutor.number(reply.get(0)) == 1) {
                            stopListening();
                            acquired(owner, ScriptExecutor.number(reply.get(1)), sentAt);
                        } else {
                            busy(Math.max(1, ScriptExecutor.number(reply.get(1))));
                        }
                    });
        }

        private void acquired(String owner, long fencingToken, long sentAt) {
            RedisLock lock =
                    new RedisLock(RedisLockManager.this, key, lockKey, owner, fencingToken, options, sentAt, null);
            hold(lock);
            // scheduling takes the watchdog's queue lock: done from the lock-free timer, not this I/O thread
            BudgetTimer.after(Duration.ZERO, lock::watchDeadline);
            if (!result.complete(lock)) {
                lock.releaseAsync(); // the caller gave up meanwhile: never keep a lock nobody holds
            }
        }

        private void busy(long remainingLease) {
            long waitLeft = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (waitLeft <= 0) {
                stopListening();
                result.completeExceptionally(new LockNotAcquiredException(key, Duration.ofMillis(remainingLease)));
                return;
            }
            if (wake == null) {
                // listen before the next attempt, so that a release between attempt and wait is not missed
                listenAgain();
                attempt();
                return;
            }
            backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
            long pause = Math.min(
                    Math.min(waitLeft, remainingLease),
                    backoff + ThreadLocalRandom.current().nextLong(backoff));
            CompletableFuture<Void> woken = wake;
            BudgetTimer.after(
                    Duration.ofMillis(pause), () -> woken.complete(null)); // no cancel: a later complete is a no-op
            woken.thenRun(() -> {
                listenAgain();
                attempt();
            });
        }

        private void listenAgain() {
            stopListening();
            CompletableFuture<Void> next = new CompletableFuture<>();
            wake = next;
            waker = () -> next.complete(null);
            listen(lockKey, waker);
        }

        private void stopListening() {
            if (waker != null) {
                unlisten(lockKey, waker);
                waker = null;
            }
        }
    }

    /**
     * A lock that no replica acknowledged in time is released (by its owner, as any release) and never reported as
     * held: a failover before the replica got it could grant it to a second holder.
     */
    private RedisUnavailableException notAcknowledged(String key, String lockKey, String owner, LockOptions options) {
        giveBack(lockKey, owner, options);
        return Replicas.notAcknowledged("the lock '" + key + "'", "released");
    }

    /**
     * Gives back the lock one attempt may hold, its caller having been told it failed: released if that attempt
     * holds it, else the attempt takes nothing if it runs later (see {@link GiveBacks}). Never another owner's lock.
     */
    private void giveBack(String lockKey, String owner, LockOptions options) {
        GiveBacks.send(
                events,
                "lock",
                () -> executor.callAsync(
                        GIVE_BACK,
                        List.of(lockKey, RedisKeys.givenBackKey(lockKey), RedisKeys.descriptionKey(lockKey)),
                        new Object[] {
                            owner,
                            keys.lockReleasedChannel(),
                            Long.toString(options.maxLifetime().toMillis())
                        }),
                reply -> ScriptExecutor.number(reply.get(0)) == 1);
    }

    private List<Object> acquireKeys(String tag, String lockKey) {
        return List.of(lockKey, keys.fenceKey(tag), RedisKeys.givenBackKey(lockKey), RedisKeys.descriptionKey(lockKey));
    }

    private Object[] acquireArgs(String key, String owner, LockOptions options) {
        String name = nameOf(options);
        return new Object[] {
            owner, Long.toString(options.lease().toMillis()), Long.toString(FENCE_TTL_MS), name, key, holder
        };
    }

    /** A lock handed out: an operator's release of it (announced by owner) reaches it from now on. */
    private void hold(RedisLock lock) {
        held.put(lock.owner(), lock);
        revocations.ensure();
    }

    /** A lock released or lost: no longer this manager's. */
    void forget(RedisLock lock) {
        held.remove(lock.owner(), lock);
    }

    /** How many locks this instance holds right now (released or lost ones not counted). */
    public int heldHere() {
        return held.size();
    }

    /** The SPI's {@code runIfFree}, telling listeners of a run skipped on a busy lock. */
    @Override
    public boolean runIfFree(String key, LockOptions options, java.util.function.Consumer<LockHandle> task) {
        boolean ran = LockManager.super.runIfFree(key, options, task);
        if (!ran) {
            events.lockSkipped(nameOf(options));
            log.debug("Skipped a task: lock {} is held by another instance", LockManager.quotedKey(key));
        }
        return ran;
    }

    /**
     * Scans every master for locks' descriptions (a hundred keys a step, never a blocking KEYS), then reads each in one
     * batch; a lock taken by a version that writes no description is not listed.
     */
    @Override
    public List<HeldLock> heldLocks(int max) {
        if (max < 1) {
            throw new IllegalArgumentException(Messages.atLeast("max", 1, max));
        }
        List<String> found = RedisKeys.scan(redisson, keys.descriptionPattern(), max);
        if (found.isEmpty()) {
            return List.of();
        }
        List<CompletableFuture<List<Object>>> reads = new java.util.ArrayList<>(found.size());
        for (String description : found) {
            reads.add(executor.callAsync(
                    DESCRIBE, List.of(RedisKeys.lockKeyOfDescription(description), description), new Object[0]));
        }
        List<HeldLock> locks = new java.util.ArrayList<>(found.size());
        for (CompletableFuture<List<Object>> read : reads) {
            List<Object> d;
            try {
                d = read.join();
            } catch (java.util.concurrent.CompletionException e) {
                throw Futures.cause(e) instanceof RuntimeException runtime ? runtime : e;
            }
            if (d.size() == 6) {
                locks.add(new HeldLock(
                        String.valueOf(d.get(1)),
                        String.valueOf(d.get(0)),
                        String.valueOf(d.get(2)),
                        Duration.ofMillis(Math.max(0, ScriptExecutor.number(d.get(3)))),
                        Duration.ofMillis(Math.max(0, ScriptExecutor.number(d.get(4)))),
                        Long.parseLong(String.valueOf(d.get(5)))));
            }
        }
        return locks;
    }

    @Override
    public boolean forceRelease(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException(Messages.empty("lock key"));
        }
        String lockKey = keys.lockKey(RedisKeys.tag(key));
        List<Object> reply = executor.call(REVOKE, List.of(lockKey, RedisKeys.descriptionKey(lockKey)), new Object[] {
            keys.lockReleasedChannel(), keys.lockRevokedChannel()
        });
        return ScriptExecutor.number(reply.get(0)) == 1;
    }

    /** A blocked caller's wake-up: the latch it waits on, and what the release announcement runs. */
    private record Waiter(CountDownLatch latch, Runnable waker) {}

    private Waiter listen(String lockKey) {
        CountDownLatch latch = new CountDownLatch(1);
        Waiter waiter = new Waiter(latch, latch::countDown);
        listen(lockKey, waiter.waker());
        return waiter;
    }

    private void listen(String lockKey, Runnable waker) {
        releases.ensure();
        waiters.computeIfAbsent(lockKey, k -> ConcurrentHashMap.newKeySet()).add(waker);
    }

    private void unlisten(String lockKey, Runnable waker) {
        waiters.computeIfPresent(lockKey, (k, wakers) -> {
            wakers.remove(waker);
            return wakers.isEmpty() ? null : wakers;
        });
    }

    private String owner() {
        byte[] bytes = ByteBuffer.allocate(16)
                .putLong(ownerPrefix)
                .putLong(owners.incrementAndGet())
                .array();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** How many callers of this manager wait for a release of the lock key (as stored in Redis). */
    int listening(String lockKey) {
        Set<Runnable> wakers = waiters.get(lockKey);
        return wakers == null ? 0 : wakers.size();
    }

    /** How many locks of this manager are being renewed right now. */
    int renewing() {
        return (int) activeRenewals.values().stream().filter(f -> !f.isDone()).count();
    }

    @Override
    public void close() {
        watchdog.shutdownNow();
        revocations.close();
        releases.close();
    }
}
