package io.github.ratelimit.decision;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.internal.LogThrottle;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts and logs the decisions made without Redis: rate limits that failed open (the call went through
 * unchecked) or closed (the call was refused with 503). Logs the first of each kind, then at most one line every
 * 10 s, with the running count, so an outage cannot flood the log. Also counts charges and calls refused for a block.
 *
 * <p>A listener like any other: the decision flow tells it what it tells every listener, first.
 */
public final class Fallbacks implements RateLimitListener {

    private static final Logger log = LoggerFactory.getLogger(Fallbacks.class);

    private final AtomicLong failedOpen = new AtomicLong();
    private final AtomicLong failedClosed = new AtomicLong();
    private final AtomicLong decidedLocally = new AtomicLong();
    private final AtomicLong chargedUnits = new AtomicLong();
    private final AtomicLong chargesLost = new AtomicLong();
    private final AtomicLong blockedCalls = new AtomicLong();
    private final Set<ClientIdentifier> loggedBlocks = ConcurrentHashMap.newKeySet();
    private final LogThrottle throttle = new LogThrottle(Duration.ofSeconds(10));

    @Override
    public void fellBack(String what, FailureMode mode, RedisUnavailableException cause) {
        switch (mode) {
            case OPEN -> log(failedOpen, "call allowed (fail-open", what, cause);
            case CLOSED -> log(failedClosed, "call refused (fail-closed", what, cause);
            default -> decidedLocally.incrementAndGet(); // local limits log when they start and stop
        }
    }

    private void log(AtomicLong counter, String outcome, String what, RedisUnavailableException cause) {
        long count = counter.incrementAndGet();
        if (throttle.due(count == 1)) {
            log.warn("Rate limit {} not checked, {}; {} so far): {}", what, outcome, count, cause.getMessage());
        }
    }

    /**
     * A charge after a call: counted; one the store did not confirm is logged (the first, then at most one line every 10
     * s); the Redis store sends it again by its attempt id.
     *
     * @param error why it failed, or null when it was taken
     */
    @Override
    public void charged(String what, long units, @Nullable Throwable error) {
        if (error == null) {
            chargedUnits.addAndGet(units);
            return;
        }
        long count = chargesLost.incrementAndGet();
        if (throttle.due(count == 1)) {
            log.warn(
                    "Rate limit charge of {} unit(s) after {} not confirmed ({} so far; a Redis store sends it again, applied"
                            + " once): {}",
                    units,
                    what,
                    count,
                    error.getMessage());
        }
    }

    /** Units charged after calls. */
    public long chargedUnits() {
        return chargedUnits.get();
    }

    /** Charges after calls that the store did not confirm in time (the Redis store sends them again, applied once). */
    public long chargesLost() {
        return chargesLost.get();
    }

    /** A call refused because an operator blocked its client: counted; logged once per client and instance. */
    @Override
    public void blocked(ClientIdentifier client) {
        blockedCalls.incrementAndGet();
        if (loggedBlocks.size() < 10_000 && loggedBlocks.add(client)) {
            log.warn("Calls of {} {} are refused: an operator blocked it", client.kind(), client.value());
        }
    }

    /** Calls refused because an operator blocked their client. */
    public long blockedCalls() {
        return blockedCalls.get();
    }

    /** Calls decided in this instance's memory while Redis could not decide. */
    public long decidedLocally() {
        return decidedLocally.get();
    }

    /** Calls let through unchecked while Redis could not decide. */
    public long failedOpen() {
        return failedOpen.get();
    }

    /** Calls refused (503) while Redis could not decide. */
    public long failedClosed() {
        return failedClosed.get();
    }
}
