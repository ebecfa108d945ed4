package io.github.ratelimit.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

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
