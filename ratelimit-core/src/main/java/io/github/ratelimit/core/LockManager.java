package io.github.ratelimit.core;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

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
 * <p>Re-entrant per thread: a thread that holds a key and asks for it again gets a nested handle at once.
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
     * The key of the lock a {@code @Locked(name = ..., key = ...)} method takes for one caller: its name, NUL, and the
     * canonical form of the identifier its key gave. A test (or code) holds the same lock with
     * {@code tryAcquire(LockManager.keyOf("report", ClientIdentifier.of("#userId", "42")), options)}; the identifier's
     * kind is the key as written on the annotation (a SpEL expression's text, or a kind such as {@code ip}).
     */
    static String keyOf(String name, ClientIdentifier identifier) {
        return name + '\u0000' + identifier.canonical();
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
         * lease (with renewals) has run out or a renewal found the lock gone.
         */
        boolean isHeld();

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
     */
    public record LockOptions(Duration lease, Duration maxWait, Duration maxLifetime, String name) {

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
        }

        /** A lock of this lease, not waited for, not renewed. */
        public static LockOptions lease(Duration lease) {
            return new LockOptions(lease, Duration.ZERO, lease, null);
        }

        /** The same, waiting up to {@code maxWait} for a busy lock. */
        public LockOptions waitingUpTo(Duration maxWait) {
            return new LockOptions(lease, maxWait, maxLifetime, name);
        }

        /** The same, renewed while held for up to {@code maxLifetime} in all. */
        public LockOptions renewedUpTo(Duration maxLifetime) {
            return new LockOptions(lease, maxWait, maxLifetime, name);
        }

        /** The same, called {@code name} in metrics and traces. */
        public LockOptions named(String name) {
            return new LockOptions(lease, maxWait, maxLifetime, name);
        }
    }
}
