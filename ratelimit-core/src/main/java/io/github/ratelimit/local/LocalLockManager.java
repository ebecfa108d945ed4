package io.github.ratelimit.local;

import io.github.ratelimit.core.internal.LossCallbacks;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.core.internal.NestedLockHandle;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Locks in this instance's memory ({@code ratelimit.store=memory}), with the promises of the Redis store for one
 * instance: one holder per key, fencing tokens that grow with every grant, waiting up to {@code maxWait}, the minimum
 * hold, re-entrancy per thread ({@link LockOptions#notReentrant()} to refuse it), extension, the loss signals (the
 * lifetime reached, an operator's release) and the operator's listing. A lock needs no lease here: its holder lives as
 * long as this memory, so a lock ends when released or at its lifetime.
 */
public final class LocalLockManager implements LockManager, AutoCloseable {

    private final Table table;
    private final String holder;
    private final ThreadLocal<Map<String, LocalLock>> heldByThread = ThreadLocal.withInitial(HashMap::new);

    /** The locks of this instance, listed to operators as held by {@code holder} (its name, or {@code pid@host}). */
    public LocalLockManager(String holder) {
        this(new Table(), holder);
    }

    private LocalLockManager(Table table, String holder) {
        if (holder == null || holder.isBlank() || holder.length() > 200) {
            throw new IllegalArgumentException(
                    "the lock holder's name must be 1 to 200 characters, but was '" + Messages.printable(holder) + "'");
        }
        this.table = table;
        this.holder = holder;
    }

    /**
     * Another manager on the same memory, as a second instance on one store would be (its own holder name and
     * re-entrancy per thread): for tests of code that takes locks from two instances. Closing either stops both.
     */
    public LocalLockManager onTheSameMemory(String holder) {
        return new LocalLockManager(table, holder);
    }

    /** The locks and the fencing counter every manager on one memory shares, guarded by the table's monitor. */
    private static final class Table {
        final Map<String, LocalLock> locks = new HashMap<>();
        /** The last fencing token given: one counter for every key, so it grows per key and holds nothing per key. */
        long fenced;

        final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "ratelimit-local-locks");
            thread.setDaemon(true);
            return thread;
        });

        /** The lock that keeps a key taken now, if any: one released past its minimum hold, or ended, is dropped. */
        @Nullable
        LocalLock live(String key, long now) {
            LocalLock lock = locks.get(key);
            if (lock != null && now - lock.takenUntil >= 0) {
                locks.remove(key);
                return null;
            }
            return lock;
        }
    }

    @Override
    public LockHandle tryAcquire(String key, LockOptions options) {
        checkKey(key);
        if (options.reentrant()) {
            LocalLock held = heldByThread.get().get(key);
            if (held != null && held.isHeld()) {
                return held.nested();
            }
        }
        long deadline = System.nanoTime() + options.maxWait().toNanos();
        synchronized (table) {
            while (true) {
                long now = System.nanoTime();
                LocalLock current = table.live(key, now);
                if (current == null) {
                    LocalLock lock = take(key, options, now, Thread.currentThread());
                    heldByThread.get().put(key, lock);
                    return lock;
                }
                long wait = Math.min(deadline - now, current.takenUntil - now);
                if (deadline - now <= 0) {
                    throw busy(key, current, now);
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(table, wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new LockNotAcquiredException(key, Duration.ZERO);
                }
            }
        }
    }

    /** Not re-entrant (a reactive pipeline has no thread that owns it); never blocks: a busy lock is asked again. */
    @Override
    public CompletionStage<LockHandle> tryAcquireAsync(String key, LockOptions options) {
        CompletableFuture<LockHandle> result = new CompletableFuture<>();
        try {
            checkKey(key);
            attempt(key, options, System.nanoTime() + options.maxWait().toNanos(), result);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    private void attempt(String key, LockOptions options, long deadline, CompletableFuture<LockHandle> result) {
        synchronized (table) {
            long now = System.nanoTime();
            LocalLock current = table.live(key, now);
            if (current == null) {
                result.complete(take(key, options, now, null));
                return;
            }
            if (deadline - now <= 0) {
                result.completeExceptionally(busy(key, current, now));
                return;
            }
        }
        try {
            table.timer.schedule(() -> attempt(key, options, deadline, result), 5, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            result.completeExceptionally(new LockNotAcquiredException(key, Duration.ZERO));
        }
    }

    /** Takes a free key; called holding the table's monitor. */
    private LocalLock take(String key, LockOptions options, long now, @Nullable Thread thread) {
        long fencingToken = ++table.fenced;
        LocalLock lock = new LocalLock(key, options, fencingToken, now, thread);
        table.locks.put(key, lock);
        lock.watchLifetime();
        return lock;
    }

    /**
     * A busy lock's refusal, advising a retry when the lock ends or, for a lock renewed in lease steps, after a lease:
     * what the Redis store advises, where its holder renews the lease.
     */
    private static LockNotAcquiredException busy(String key, LocalLock current, long now) {
        LockOptions options = current.options;
        long left = current.takenUntil - now;
        if (options.lease().compareTo(options.maxLifetime()) < 0) {
            left = Math.min(options.lease().toNanos(), left);
        }
        return new LockNotAcquiredException(key, Duration.ofMillis(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
    }

    private static void checkKey(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException(Messages.empty("lock key"));
        }
    }

    @Override
    public List<HeldLock> heldLocks(int max) {
        List<HeldLock> held = new ArrayList<>();
        synchronized (table) {
            long now = System.nanoTime();
            for (String key : List.copyOf(table.locks.keySet())) {
                LocalLock lock = table.live(key, now);
                if (lock != null && held.size() < max) {
                    held.add(new HeldLock(
                            lock.options.name() != null ? lock.options.name() : key,
                            key,
                            lock.holder(),
                            Duration.ofNanos(now - lock.takenAt),
                            Duration.ofNanos(lock.takenUntil - now),
                            lock.fencingToken));
                }
            }
        }
        return held;
    }

    @Override
    public boolean forceRelease(String key) {
        LocalLock freed;
        synchronized (table) {
            freed = table.live(key, System.nanoTime());
            if (freed == null) {
                return false;
            }
            table.locks.remove(key);
            table.notifyAll();
        }
        freed.lost(LossReason.RELEASED_BY_OPERATOR);
        return true;
    }

    /** Stops the timer of every manager on this memory; held locks then end only when released. */
    @Override
    public void close() {
        table.timer.shutdownNow();
    }

    private final class LocalLock implements LockHandle {

        final String key;
        final LockOptions options;
        final long fencingToken;
        final long takenAt;
        private final @Nullable Thread thread;
        private final LossCallbacks lossCallbacks;
        /** Until when the key stays taken (JVM nanos): the lifetime's end, or the minimum hold's after a release. */
        volatile long takenUntil;

        private volatile long endsAt;
        private volatile boolean released;
        private volatile @Nullable LossReason loss;
        private @Nullable ScheduledFuture<?> timer; // guarded by the table
        private int holds = 1; // the owning thread's
        /** Until when a release still keeps the key taken (JVM nanos): the minimum hold's end, guarded by the table. */
        private long holdEnds;

        LocalLock(String key, LockOptions options, long fencingToken, long takenAt, @Nullable Thread thread) {
            this.key = key;
            this.lossCallbacks = new LossCallbacks(key);
            this.options = options;
            this.fencingToken = fencingToken;
            this.takenAt = takenAt;
            this.thread = thread;
            this.endsAt = takenAt + options.maxLifetime().toNanos();
            this.takenUntil = endsAt;
            this.holdEnds = takenAt + options.minHold().toNanos();
        }

        String holder() {
            return holder;
        }

        /** Schedules the end of the lifetime; called holding the table's monitor. */
        void watchLifetime() {
            if (timer != null) {
                timer.cancel(false);
            }
            try {
                timer = table.timer.schedule(
                        this::lifetimeReached, Math.max(0, endsAt - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closed) {
                timer = null; // the managers are closed: isHeld() still turns false at the lifetime's end
            }
        }

        private void lifetimeReached() {
            synchronized (table) {
                if (released || loss != null || System.nanoTime() - endsAt < 0) {
                    return;
                }
                table.locks.remove(key, this);
                table.notifyAll();
            }
            lost(LossReason.LIFETIME_REACHED);
        }

        void lost(LossReason reason) {
            synchronized (table) {
                if (released || loss != null) {
                    return;
                }
                loss = reason;
                if (timer != null) {
                    timer.cancel(false);
                }
            }
            lossCallbacks.tellAll(reason);
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
            return !released && loss == null && System.nanoTime() - endsAt < 0;
        }

        @Override
        public void whenLost(Consumer<LossReason> callback) {
            lossCallbacks.add(callback, () -> loss);
        }

        @Override
        public boolean extend(Duration atMost) {
            return extend(atMost, Duration.ZERO);
        }

        @Override
        public boolean extend(Duration atMost, Duration atLeast) {
            LockHandle.checkExtension(atMost, atLeast);
            synchronized (table) {
                if (!isHeld()) {
                    return false;
                }
                long now = System.nanoTime();
                endsAt = now + atMost.toNanos();
                takenUntil = endsAt;
                if (now + atLeast.toNanos() - holdEnds > 0) {
                    holdEnds = now + atLeast.toNanos(); // never shorter than the hold it was taken with
                }
                watchLifetime();
                return true;
            }
        }

        @Override
        public boolean release() {
            if (holds > 1 && Thread.currentThread() == thread) {
                holds--;
                return isHeld();
            }
            boolean wasHeld;
            synchronized (table) {
                if (released) {
                    return false;
                }
                wasHeld = isHeld();
                released = true;
                if (timer != null) {
                    timer.cancel(false);
                }
                long now = System.nanoTime();
                if (wasHeld && now - holdEnds < 0) {
                    takenUntil = holdEnds; // stays taken until the minimum hold ends, then is dropped
                    try {
                        table.timer.schedule(
                                () -> {
                                    synchronized (table) {
                                        table.live(key, System.nanoTime());
                                    }
                                },
                                holdEnds - now,
                                TimeUnit.NANOSECONDS);
                    } catch (RejectedExecutionException closed) {
                        // the managers are closed: the key is dropped when next asked for
                    }
                } else {
                    table.locks.remove(key, this);
                }
                table.notifyAll();
            }
            if (thread != null && Thread.currentThread() == thread) {
                heldByThread.get().remove(key, this);
            }
            return wasHeld;
        }

        LockHandle nested() {
            holds++;
            return new NestedLockHandle(this, () -> holds--);
        }
    }
}
