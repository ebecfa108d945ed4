package io.github.ratelimit.core.concurrency;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.internal.Messages;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * Concurrency limits whose limit is learnt from the latency of what they protect, one limit for every instance that
 * shares the store. The slots are those of {@link ConcurrencyLimiter}: exact across instances, leases renewed while
 * held. Each call that ends is a sample: its latency, from the slot taken to the slot given back, or a drop (a timeout,
 * an error), which returns at once and is never taken for a fast call. Once per window the limit moves for the whole
 * fleet, from what every instance reported (docs/adaptive.md). An operator can read where a limit stands
 * ({@link #status}) and steer it for every instance ({@link #steer}).
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
     * Where the fleet's limit of {@code name} for {@code identifier} stands, read without taking anything: the limit,
     * the no-load latency, the instances that took its slots lately, the operator's steering and the last windows.
     *
     * @return null when no call took a slot of it yet (a limit nobody calls for a day starts again, and reads null)
     *     and no operator steers it
     * @throws RedisUnavailableException if the store cannot answer
     */
    @Nullable
    Status status(String name, ClientIdentifier identifier);

    /**
     * Steers the limit of {@code name} for {@code identifier} on every instance, from the next window on, until
     * steered again or cleared: a pinned limit holds its value whatever the latency; bounds replace the declared
     * {@code min} and {@code max}. The limit goes on from where it stands when cleared.
     *
     * @param steering the steering, or null to clear it (back to the declared settings)
     * @throws RedisUnavailableException if the store could not write it
     */
    void steer(String name, ClientIdentifier identifier, @Nullable Steering steering);

    /**
     * An operator's steering of an adaptive limit; a null part is not steered.
     *
     * @param pin the limit, whatever the latency; at least 1, and it may lie outside the bounds
     * @param min the lowest the limit goes, in place of the declared one; at least 1
     * @param max the highest, in place of the declared one; at least {@code min} when both are set
     */
    record Steering(@Nullable Integer pin, @Nullable Integer min, @Nullable Integer max) {

        public Steering {
            if (pin == null && min == null && max == null) {
                throw new IllegalArgumentException("a steering pins the limit or sets its min or max");
            }
            if (pin != null && pin < 1) {
                throw new IllegalArgumentException(Messages.atLeast("pin", 1, pin));
            }
            if (min != null && min < 1) {
                throw new IllegalArgumentException(Messages.atLeast("min", 1, min));
            }
            if (max != null && max < 1) {
                throw new IllegalArgumentException(Messages.atLeast("max", 1, max));
            }
            if (min != null && max != null && max < min) {
                throw new IllegalArgumentException("max must be at least min " + min + ", but was " + max);
            }
        }

        /**
         * The declared settings with this steering's bounds: a bound set here replaces the declared one, and when it
         * crosses the other declared bound, that one moves with it; the initial limit stays within.
         */
        public AdaptiveSettings bounds(AdaptiveSettings declared) {
            int low = min != null ? min : declared.min();
            int high = max != null ? max : declared.max();
            if (low > high) {
                if (min != null) {
                    high = low;
                } else {
                    low = high;
                }
            }
            return new AdaptiveSettings(
                    low,
                    high,
                    Math.max(low, Math.min(high, declared.initial())),
                    declared.tolerance(),
                    declared.window());
        }
    }

    /**
     * Where a limit stands.
     *
     * @param limit the limit of the current window
     * @param noLoad the lowest latency measured (raised only at low load), or null before a window measured one
     * @param instances the instances that took its slots in the last two windows, at least 1
     * @param steering the operator's steering, or null
     * @param windows the last windows applied, newest first, at most {@link #WINDOWS_KEPT}
     */
    record Status(
            int limit, @Nullable Duration noLoad, int instances, @Nullable Steering steering, List<Window> windows) {

        /** The windows a store keeps for {@link #windows()}. */
        public static final int WINDOWS_KEPT = 30;

        public Status {
            windows = List.copyOf(windows);
        }
    }

    /**
     * One sampling window as the fleet reported it, and what its step made of the limit.
     *
     * @param index the window's number: it started at {@code index} times the window on the store's clock
     * @param limit the limit the step gave, in force from the next window
     * @param completed calls that ended normally in it: its latency samples
     * @param dropped calls that timed out or failed
     * @param refused calls the limit refused
     * @param peakInFlight the most calls in flight at once, across the fleet
     * @param meanLatency the completed calls' mean latency, or null when none completed
     */
    record Window(
            long index,
            int limit,
            long completed,
            long dropped,
            long refused,
            long peakInFlight,
            @Nullable Duration meanLatency) {}

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

        /** The calls in flight across the fleet when this slot was taken, this one included. */
        int inFlight();

        /** The no-load latency when this slot was taken, or null before a window measured one. */
        @Nullable
        Duration noLoadLatency();

        /** The mean latency of the last window applied, or null when it completed no call. */
        @Nullable
        Duration recentLatency();
    }
}
