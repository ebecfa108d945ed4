package io.github.ratelimit.core;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts and logs the decisions made without Redis: rate limits that failed open (the call went through
 * unchecked) or closed (the call was refused with 503). Logs the first of each kind, then every 100th, with
 * the running count, so an outage cannot flood the log.
 */
public final class RedisFallbacks {

    private static final Logger log = LoggerFactory.getLogger(RedisFallbacks.class);
    private static final long EVERY = 100;

    private final AtomicLong failedOpen = new AtomicLong();
    private final AtomicLong failedClosed = new AtomicLong();

    /** A call let through unchecked because Redis was unavailable. */
    public void failedOpen(String what, RedisUnavailableException cause) {
        log(failedOpen, "call allowed (fail-open", what, cause);
    }

    /** A call refused because Redis was unavailable. */
    public void failedClosed(String what, RedisUnavailableException cause) {
        log(failedClosed, "call refused (fail-closed", what, cause);
    }

    private static void log(AtomicLong counter, String outcome, String what, RedisUnavailableException cause) {
        long count = counter.incrementAndGet();
        if (count == 1 || count % EVERY == 0) {
            log.warn("Rate limit {} not checked, {}; {} so far): {}", what, outcome, count, cause.getMessage());
        }
    }

    public long failedOpen() {
        return failedOpen.get();
    }

    public long failedClosed() {
        return failedClosed.get();
    }
}
