package io.github.ratelimit.core.locks;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.internal.Messages;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Distributed locks with safe release, bounded lifetime and fencing tokens, for code that is not a
 * {@code @Locked} bean method:
 *
 * <pre>{@code
 * try (LockHandle lock = locks.tryAcquire("report:" + id, LockOptions.lease(Duration.ofSeconds(10)))) {
 *     storage.write(report, lock.fencingToken());
 * }
 * }</pre>
 *
 * <p>{@link #tryAcquire} is re-entrant per thread: a thread that holds a key and asks for it again gets a nested handle
 * at once, and only the outermost release frees the lock. So are {@link #runIfFree} and {@code @Locked} methods, which
 * take their locks through it. {@link #tryAcquireAsync} is not (a reactive pipeline has no thread that owns it). Code
 * that manages nesting itself (ShedLock's contract: a second lock of a held name is refused, also on the same thread)
 * asks with {@link LockOptions#notReentrant()}: the thread is then refused, or waits, like any other holder.
 *
 * <p>A job that must run once across the fleet per tick (a Quartz job, a Kafka consumer's batch, a plain timer) runs
 * through {@link #runIfFree(String, LockOptions, Runnable)}, with a minimum hold so that an instance whose schedule fires a
 * little later does not run it again:
 *
 * <pre>{@code
 * boolean ran = locks.runIfFree("nightly-report", LockOptions.lease(Duration.ofMinutes(5))
 *         .holdingAtLeast(Duration.ofSeconds(30)), () -> reports.build());
 * }</pre>
 */
public interface LockManager {

    /**
     * Takes the lock, waiting up to {@code options.maxWait()} for it.
     *
     * @throws LockNotAcquiredException if it is still busy after the wait
     */
    LockHandle tryAcquire(String key, LockOptions options);

    /**
     * {@link #tryAcquire} without blocking the calling thread, for reactive callers: the stage fails with
     * {@link LockNotAcquiredException} if the lock is still busy after {@code options.maxWait()}. Not re-entrant (a
     * reactive pipeline has no thread that owns it). The default runs on the calling thread; implementations that
     * wait for a network override it.
     */
    default CompletionStage<LockHandle> tryAcquireAsync(String key, LockOptions options) {
        try {
            return CompletableFuture.completedFuture(tryAcquire(key, options));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Runs the task under the lock if it is free (after waiting up to {@code options.maxWait()}), else skips it: what
     * ShedLock's {@code LockingTaskExecutor} does. The lock is released when the task ends, but stays taken until
     * {@code options.minHold()} has passed since it was taken.
     *
     * @return whether the task ran; false when the lock was busy
     * @throws RedisUnavailableException if the store could not be asked (the task did not run)
     */
    default boolean runIfFree(String key, LockOptions options, Runnable task) {
        return runIfFree(key, options, lock -> task.run());
    }

    /** {@link #runIfFree(String, LockOptions, Runnable)} for a task that needs its lock (its fencing token). */
    default boolean runIfFree(String key, LockOptions options, Consumer<LockHandle> task) {
        Objects.requireNonNull(task, "task");
        LockHandle lock;
        try {
            lock = tryAcquire(key, options);
        } catch (LockNotAcquiredException busy) {
            return false;
        }
        try (lock) {
            task.accept(lock);
        }
        return true;
    }

    /**
     * The locks held in the store right now, at most {@code max} of them, read in batches (never one blocking scan of
     * the whole store). For operators: which job runs, on which instance, since when.
     *
     * @throws UnsupportedOperationException if this store cannot list its locks
     */
    default List<HeldLock> heldLocks(int max) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot list its locks");
    }

    /**
     * Releases a lock whoever holds it, for an operator freeing a stuck job; its holder is told the lock was
     * {@linkplain LossReason#RELEASED_BY_OPERATOR released by an operator}, and waiters are woken. The fencing token
     * moves on with the next acquisition, so a store that checks it rejects the former holder's writes.
     *
     * @param key the lock's key, as {@link HeldLock#key()} gives it
     * @return whether a lock was held and is now released
     * @throws UnsupportedOperationException if this store cannot release another holder's lock
     */
    default boolean forceRelease(String key) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot release another holder's lock");
    }

    /** Why a holder lost its lock before it released it. */
    enum LossReason {
        /** Renewals did not reach the store before the lease ran out (the store unreachable, or this process stalled). */
        RENEWAL_FAILED,
        /** The lock reached its maximum lifetime while its holder still ran. */
        LIFETIME_REACHED,
        /** An operator released it ({@link #forceRelease}). */
        RELEASED_BY_OPERATOR,
        /** The store no longer had it as this holder's: it expired there and may be held by another. */
        TAKEN_OVER
    }

    /**
     * A lock held in the store, as an operator sees it.
     *
     * @param name the lock's name ({@code @Locked}'s name, {@link LockOptions#name()}); {@code programmatic} without one
     * @param key the lock's key as it was taken, what {@link #forceRelease} takes
     * @param holder the instance that holds it (process id and host, unless the application names it)
     * @param held how long it has been held, on the store's clock
     * @param leaseLeft how long until it expires unless renewed (or, once released within its minimum hold, until
     *     that ends)
     * @param fencingToken the holder's fencing token
     */
    record HeldLock(String name, String key, String holder, Duration held, Duration leaseLeft, long fencingToken) {

        public HeldLock {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(holder, "holder");
            Objects.requireNonNull(held, "held");
            Objects.requireNonNull(leaseLeft, "leaseLeft");
        }

        /**
         * The key as a person names it: for a {@code @Locked} method's lock, the value its key expression gave
         * ({@code 42} for {@code key = "#userId"}), empty for a job locked by its name alone; else the whole key.
         */
        public String shownKey() {
            return LockManager.shownKey(name, key);
        }
    }

    /**
     * A lock's key as a person reads it: a {@code @Locked} method's {@code name\0kind\0value} as {@code 'name' (key
     * value)}, any other key quoted; control characters escaped as {@link Messages#printable} does.
     */
    static String quotedKey(String key) {
        if (key == null) {
            return "null";
        }
        int nameEnd = key.indexOf('\u0000');
        if (nameEnd < 0) {
            return "'" + Messages.printable(key) + "'";
        }
        String name = key.substring(0, nameEnd);
        return "'" + Messages.printable(name) + "' (key " + Messages.printable(shownKey(name, key)) + ")";
    }

    /** See {@link HeldLock#shownKey()}: the key without its name and the identifier's kind. */
    static String shownKey(String name, String key) {
        if (key.equals(name)) {
            return "";
        }
        if (!key.startsWith(name + '\u0000')) {
            return key;
        }
        String identifier = key.substring(name.length() + 1);
        int kindEnd = identifier.indexOf('\u0000');
        return kindEnd < 0 ? identifier : identifier.substring(kindEnd + 1);
    }

    /**
     * The key of the lock a {@code @Locked(name = ..., key = ...)} method takes for one caller: its name, NUL, and the
     * canonical form of the identifier its key gave. A test (or code) holds the same lock with
     * {@code tryAcquire(LockManager.keyOf("report", ClientIdentifier.of("#userId", "42")), options)}; the identifier's
     * kind is the key as written on the annotation (a SpEL expression's text, or a kind such as {@code ip}).
     */
    static String keyOf(String name, ClientIdentifier identifier) {
        return name + '\u0000' + identifier.canonical();
    }

    /** The key of the lock a {@code @Locked(name = ...)} method without a key takes: its name alone, one per fleet. */
    static String keyOf(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException(Messages.empty("lock name"));
        }
        return name;
    }

    /**
     * A held lock. Close it (or call {@link #release()}) when done; only its owner can release it. Declare a
     * parameter of this type on a {@code @Locked} method to receive the lock the method runs under.
     */
    public interface LockHandle extends AutoCloseable {

        /** The lock's key as given. */
        String key();

        /**
         * A number that strictly increases with every acquisition of this key, also across expiry of the lock and
         * restarts of Redis with persistence. Pass it to storage that must reject writes of a stale holder.
         */
        long fencingToken();

        /**
         * Whether the lock is still ours, as far as this process can tell without asking Redis: false once the
         * lease (with renewals) has run out or a renewal found the lock gone. The lease is counted from when each
         * acquisition or renewal was sent, less a margin for clock drift, so this turns false before the store's key
         * can expire and another instance take the lock.
         */
        boolean isHeld();

        /**
         * Calls {@code callback} once if this holder loses the lock before releasing it, with the reason, as soon as
         * this process can tell (on a library thread; at once if it is lost already). Never called after a release.
         * A callback must not block; what it throws is logged and ignored.
         */
        void whenLost(Consumer<LossReason> callback);

        /**
         * Moves the lock's end: from now, it may be held for {@code atMost} in all (a job that learns it needs longer,
         * ShedLock's {@code extendActiveLock}; or shorter). A lock renewed while held ({@code lease} below
         * {@code maxLifetime}) is renewed in {@code lease} steps up to the new end, so a crashed holder's lock still
         * ends after a lease; a lock that is not renewed lives until the new end. Refused (false) once the lock is no
         * longer held; a lock found taken over is then reported lost. Waits for the store, within its budget.
         *
         * @param atMost how long from now the lock may still be held, at least 1 ms
         * @return whether the lock was extended
         * @throws UnsupportedOperationException if the implementation cannot extend locks
         */
        default boolean extend(Duration atMost) {
            throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot extend a lock");
        }

        /**
         * {@link #extend(Duration)} without blocking the calling thread, for reactive callers. The default runs on
         * the calling thread.
         */
        default CompletionStage<Boolean> extendAsync(Duration atMost) {
            try {
                return CompletableFuture.completedFuture(extend(atMost));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        /**
         * {@link #extend(Duration)} with a new minimum hold (ShedLock's {@code extend(lockAtMostFor,
         * lockAtLeastFor)}): from now, the lock may be held at most {@code atMost}, and a release before {@code atLeast}
         * from now keeps it taken until then, on the store's clock. The minimum hold never shrinks: a release keeps the
         * lock until the later of this one's end and the one it was taken with ({@link LockOptions#minHold()}).
         * {@code atLeast} zero is {@code extend(atMost)}.
         *
         * @param atMost how long from now the lock may still be held, at least 1 ms
         * @param atLeast how long from now a release still keeps it taken, from zero to {@code atMost}
         * @return whether the lock was extended
         * @throws UnsupportedOperationException if the implementation cannot extend locks or set their minimum hold
         */
        default boolean extend(Duration atMost, Duration atLeast) {
            checkExtension(atMost, atLeast);
            if (atLeast.isZero()) {
                return extend(atMost);
            }
            throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot set a lock's minimum hold");
        }

        /**
         * {@link #extend(Duration, Duration)} without blocking the calling thread, for reactive callers. The default
         * runs on the calling thread.
         */
        default CompletionStage<Boolean> extendAsync(Duration atMost, Duration atLeast) {
            try {
                return CompletableFuture.completedFuture(extend(atMost, atLeast));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        /**
         * Checks an extension's durations as every implementation does: {@code atMost} at least 1 ms, {@code atLeast}
         * from zero to {@code atMost}.
         *
         * @throws IllegalArgumentException naming the duration that is wrong
         */
        static void checkExtension(Duration atMost, Duration atLeast) {
            if (atMost == null || atMost.toMillis() < 1) {
                throw new IllegalArgumentException("a lock is extended by at least 1 ms, but was " + atMost);
            }
            if (atLeast == null || atLeast.isNegative() || atLeast.compareTo(atMost) > 0) {
                throw new IllegalArgumentException("a lock's new minimum hold (atLeast) must be from zero to atMost "
                        + atMost + ", but was " + atLeast);
            }
        }

        /** Throws {@link LockLostException} unless {@link #isHeld()}. */
        default void checkHeld() {
            if (!isHeld()) {
                throw new LockLostException(key());
            }
        }

        /**
         * Releases the lock if this handle still owns it (compare-and-delete); never removes another holder's
         * lock. Stops renewal. Returns false if the lock had already expired or been taken by someone else. For a
         * re-entrant (nested) handle, only the outermost release frees the lock.
         */
        boolean release();

        /**
         * {@link #release()} without blocking the calling thread, for reactive callers; the stage completes with what
         * {@code release()} returns. The default runs on the calling thread.
         */
        default CompletionStage<Boolean> releaseAsync() {
            try {
                return CompletableFuture.completedFuture(release());
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        /** Same as {@link #release()}, for try-with-resources. */
        @Override
        default void close() {
            release();
        }
    }

    /**
     * How to take a lock.
     *
     * @param lease how long the lock lives if its holder vanishes; at least 1 ms
     * @param maxWait how long to wait for a busy lock; zero fails at once
     * @param maxLifetime how long the lock may be held, renewals included; at least the lease (equal: no renewal)
     * @param name what the lock is called in metrics and traces (a {@code @Locked} method's name), never its key; null for
     *     a lock taken in code without one
     * @param minHold how long after it was taken the lock stays taken even when released sooner; zero for none
     * @param reentrant whether a thread that holds the key gets a nested handle at once ({@link #tryAcquire} only)
     */
    public record LockOptions(
            Duration lease,
            Duration maxWait,
            Duration maxLifetime,
            @Nullable String name,
            Duration minHold,
            boolean reentrant) {

        /** Re-entrant options. */
        public LockOptions(
                Duration lease, Duration maxWait, Duration maxLifetime, @Nullable String name, Duration minHold) {
            this(lease, maxWait, maxLifetime, name, minHold, true);
        }

        /** Re-entrant options without a minimum hold. */
        public LockOptions(Duration lease, Duration maxWait, Duration maxLifetime, @Nullable String name) {
            this(lease, maxWait, maxLifetime, name, Duration.ZERO, true);
        }

        public LockOptions {
            Objects.requireNonNull(lease, "lease");
            Objects.requireNonNull(maxWait, "maxWait");
            Objects.requireNonNull(maxLifetime, "maxLifetime");
            if (lease.toMillis() < 1) {
                throw new IllegalArgumentException("lease must be at least 1 ms, but was " + lease);
            }
            if (maxWait.isNegative()) {
                throw new IllegalArgumentException(Messages.negative("maxWait", maxWait));
            }
            if (maxLifetime.compareTo(lease) < 0) {
                throw new IllegalArgumentException(
                        "maxLifetime must be at least the lease " + lease + ", but was " + maxLifetime);
            }
            if (name != null && !Messages.isName(name)) {
                throw new IllegalArgumentException(Messages.badName("lock name", name));
            }
            Objects.requireNonNull(minHold, "minHold");
            if (minHold.isNegative()) {
                throw new IllegalArgumentException(Messages.negative("minHold", minHold));
            }
            if (minHold.compareTo(maxLifetime) > 0) {
                throw new IllegalArgumentException(
                        "minHold must be at most the maxLifetime " + maxLifetime + ", but was " + minHold);
            }
        }

        /**
         * A lock of this lease, not waited for, not renewed: it lives the whole lease unless released, also when its
         * holder dies (ShedLock's {@code lockAtMostFor}).
         */
        public static LockOptions lease(Duration lease) {
            return new LockOptions(lease, Duration.ZERO, lease, null);
        }

        /** The same, waiting up to {@code maxWait} for a busy lock. */
        public LockOptions waitingUpTo(Duration maxWait) {
            return new LockOptions(lease, maxWait, maxLifetime, name, minHold, reentrant);
        }

        /** The same, renewed while held for up to {@code maxLifetime} in all. */
        public LockOptions renewedUpTo(Duration maxLifetime) {
            return new LockOptions(lease, maxWait, maxLifetime, name, minHold, reentrant);
        }

        /** The same, called {@code name} in metrics and traces. */
        public LockOptions named(String name) {
            return new LockOptions(lease, maxWait, maxLifetime, name, minHold, reentrant);
        }

        /**
         * The same, kept taken until {@code minHold} after it was taken even when released sooner (ShedLock's
         * {@code lockAtLeastFor}): a job that ends quickly is not run again by an instance whose schedule fires a little
         * later. At most the maximum lifetime; counted on the store's clock.
         */
        public LockOptions holdingAtLeast(Duration minHold) {
            return new LockOptions(lease, maxWait, maxLifetime, name, minHold, reentrant);
        }

        /**
         * The same, not re-entrant: a thread that holds the key is refused (or waits, up to {@code maxWait}) like any
         * other holder, for code that manages nesting itself.
         */
        public LockOptions notReentrant() {
            return new LockOptions(lease, maxWait, maxLifetime, name, minHold, false);
        }
    }
}
