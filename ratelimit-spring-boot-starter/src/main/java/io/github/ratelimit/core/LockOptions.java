package io.github.ratelimit.core;

import java.time.Duration;
import java.util.Objects;

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
