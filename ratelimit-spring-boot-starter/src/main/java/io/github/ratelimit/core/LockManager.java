package io.github.ratelimit.core;

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
}
