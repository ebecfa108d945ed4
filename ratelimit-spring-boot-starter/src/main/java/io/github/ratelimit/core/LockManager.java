package io.github.ratelimit.core;

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
}
