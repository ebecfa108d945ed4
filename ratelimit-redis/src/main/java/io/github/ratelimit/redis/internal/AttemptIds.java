package io.github.ratelimit.redis.internal;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ids of write attempts, unique across instances and calls: this JVM's random 64 bits and a counter, made without
 * blocking. A write names its attempt so that, when its answer is lost, what that attempt (and only it) took can be
 * given back.
 */
public final class AttemptIds {

    private final String prefix = Long.toHexString(new SecureRandom().nextLong()) + '.';
    private final AtomicLong counter = new AtomicLong();

    public String next() {
        return prefix + Long.toHexString(counter.incrementAndGet());
    }
}
