package io.github.ratelimit.core.concurrency;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RedisUnavailableException;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * Limits how many calls of a key are in progress at once, across instances: a call takes a slot and gives it back
 * exactly once. Slots are leases, renewed while held, so a crashed instance's slots come back on their own.
 */
public interface ConcurrencyLimiter {

    /**
     * Takes a slot of {@code name} for {@code identifier} if fewer than {@code max} are taken.
     *
     * @throws ConcurrencyLimitExceededException if all are taken
     * @throws RedisUnavailableException if Redis cannot decide within the budget
     */
    Permit tryAcquire(String name, ClientIdentifier identifier, int max, Duration lease, Duration maxLifetime);

    /** The same without blocking the calling thread. */
    CompletionStage<Permit> tryAcquireAsync(
            String name, ClientIdentifier identifier, int max, Duration lease, Duration maxLifetime);

    /** A taken slot; release it exactly once (further releases do nothing). */
    interface Permit extends AutoCloseable {

        /** Gives the slot back (once); false if it had already expired. */
        boolean release();

        /** The same without blocking the calling thread. */
        CompletionStage<Boolean> releaseAsync();

        @Override
        default void close() {
            release();
        }
    }
}
