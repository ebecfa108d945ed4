package io.github.ratelimit.core.locks;

import java.time.Duration;

/** A lock was busy for longer than the caller was willing to wait. Carries the busy lock's remaining lease. */
public class LockNotAcquiredException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final Duration retryAfter;

    public LockNotAcquiredException(String key, Duration retryAfter) {
        super("The lock " + LockManager.quotedKey(key) + " is held by another caller; it expires within "
                + retryAfter.toMillis() + " ms");
        this.key = key;
        this.retryAfter = retryAfter;
    }

    /** The lock's key. */
    public String key() {
        return key;
    }

    /** The remaining lease of the lock at the last attempt: the longest wait until it frees up. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
