package io.github.ratelimit.core.concurrency;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RedisUnavailableException;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * Concurrency limits whose limit is learnt from the latency of what they protect, one limit for every instance that
 * shares the store. The slots are those of {@link ConcurrencyLimiter}: exact across instances, leases renewed while
 * held. Each call that ends is a sample: its latency, from the slot taken to the slot given back, or a drop (a timeout,
 * an error), which returns at once and is never taken for a fast call. Once per window the limit moves for the whole
 * fleet, from what every instance reported (docs/adaptive.md).
 */
public interface AdaptiveConcurrencyLimiter {

    /**
     * Takes a slot of {@code name} for {@code identifier} if fewer than the current limit are taken.
     *
     * @throws ConcurrencyLimitExceededException if all are taken; {@link ConcurrencyLimitExceededException#max()} is
     *     the limit of that moment
     * @throws RedisUnavailableException if the store cannot decide and this implementation has no fallback
     */
    AdaptivePermit tryAcquire(
            String name, ClientIdentifier identifier, AdaptiveSettings settings, Duration lease, Duration maxLifetime);

    /** The same without blocking the calling thread. */
    CompletionStage<AdaptivePermit> tryAcquireAsync(
            String name, ClientIdentifier identifier, AdaptiveSettings settings, Duration lease, Duration maxLifetime);

    /**
     * A taken slot. {@link #release()} ends the call as completed, its latency a sample; {@link #drop()} as dropped (it
     * timed out or failed); {@link #giveBackAsync()} as never run. Each gives the slot back, once; further calls do
     * nothing.
     */
    interface AdaptivePermit extends ConcurrencyLimiter.Permit {

        /** Gives the slot back and reports the call as dropped: it counts towards a backoff, never as a latency. */
        boolean drop();

        /** The same without blocking the calling thread. */
        CompletionStage<Boolean> dropAsync();

        /**
         * Gives the slot back without a sample: the call never ran (its subscriber left before it started), so it
         * says nothing of the latency.
         */
        CompletionStage<Boolean> giveBackAsync();

        /** The limit when this slot was taken. */
        int limit();
    }
}
