package io.github.ratelimit.core.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets a repeated log line through at most once per interval, without locks, so that an outage or a flood of bad
 * requests cannot flood the log. Shared by the fallback and key-evaluation logs.
 */
public final class LogThrottle {

    private final long everyNanos;
    private final AtomicLong next = new AtomicLong(System.nanoTime());

    public LogThrottle(Duration every) {
        this.everyNanos = every.toNanos();
    }

    /**
     * Whether a line may be written now (always when {@code first}, unless another caller just took the turn); if so,
     * the next one is held back a full interval.
     */
    public boolean due(boolean first) {
        long now = System.nanoTime();
        long at = next.get();
        return (first || now - at >= 0) && next.compareAndSet(at, now + everyNanos);
    }

    /** Holds the next line back a full interval from now. */
    public void restart() {
        next.set(System.nanoTime() + everyNanos);
    }
}
