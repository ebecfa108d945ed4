package io.github.ratelimit.core.internal;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Adaptive limits in this instance's memory: each limit's slots, where it stands, and the window being measured, with
 * {@link AdaptiveLimit}'s step applied by the first call after a window closed, as the Redis store applies it for a
 * fleet. The memory store's adaptive limits, and each instance's share of a fleet limit while Redis cannot decide. A
 * slot needs no lease here: it is freed when given back, or at its maximum lifetime.
 */
public final class AdaptiveSlots implements AdaptiveConcurrencyLimiter {

    /** What a refused caller is told to wait, as the Redis store tells it. */
    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final Map<String, Adaptive> adaptive = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    /** @param nanoTime this instance's clock in nanoseconds ({@code System::nanoTime}, or one a test controls) */
    public AdaptiveSlots(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** A taken slot's end of life. */
    private static final class Slot {
        final long endsAtNanos;

        Slot(long endsAtNanos) {
            this.endsAtNanos = endsAtNanos;
        }
    }

    @Override
    public AdaptivePermit tryAcquire(
            String name, ClientIdentifier identifier, AdaptiveSettings settings, Duration lease, Duration maxLifetime) {
        if (maxLifetime.toMillis() < 1) {
            throw new IllegalArgumentException(Messages.atLeast("maxLifetime", "1 ms", maxLifetime));
        }
        Adaptive limit =
                adaptive.computeIfAbsent(name + '\u0000' + identifier.canonical(), k -> new Adaptive(settings));
        long now = nanoTime.getAsLong();
        Slot slot = new Slot(now + maxLifetime.toNanos());
        int slots = limit.take(settings, slot, now);
        if (slots < 0) {
            throw new ConcurrencyLimitExceededException(name, -slots, RETRY_AFTER);
        }
        return new SlotPermit(limit, slot, now, slots);
    }

    @Override
    public CompletionStage<AdaptivePermit> tryAcquireAsync(
            String name, ClientIdentifier identifier, AdaptiveSettings settings, Duration lease, Duration maxLifetime) {
        try {
            return CompletableFuture.completedFuture(tryAcquire(name, identifier, settings, lease, maxLifetime));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * One adaptive limit in memory: its slots, where it stands, and the window being measured; guarded by itself. A
     * closed window is applied by the first call after it, as the Redis store does for a fleet.
     */
    private static final class Adaptive {
        private final Set<Slot> live = new HashSet<>();
        private AdaptiveSettings settings;
        private AdaptiveLimit.State state;
        private long windowIndex = Long.MIN_VALUE;
        private long completed;
        private long latencySum;
        private long lowest = Long.MAX_VALUE;
        private long slow;
        private long dropped;
        private long refused;
        private long peak;

        Adaptive(AdaptiveSettings settings) {
            this.settings = settings;
            this.state = AdaptiveLimit.start(settings);
        }

        /** Takes a slot: the limit when taken, or minus the limit when all its slots were taken. */
        synchronized int take(AdaptiveSettings settings, Slot slot, long now) {
            this.settings = settings; // the latest a caller declared
            roll(now);
            live.removeIf(s -> now - s.endsAtNanos >= 0);
            int slots = Math.max(settings.min(), Math.min(settings.max(), state.slots()));
            if (live.size() >= slots) {
                refused++;
                return -slots;
            }
            live.add(slot);
            peak = Math.max(peak, live.size());
            return slots;
        }

        /**
         * Gives a slot back with its outcome (dropped, completed, or null: never ran); false if it was already freed at
         * the end of its lifetime.
         */
        synchronized boolean end(Slot slot, long now, long latencyNanos, @Nullable Boolean drop) {
            roll(now);
            boolean held = live.remove(slot) && now - slot.endsAtNanos < 0;
            if (drop == null) {
                return held; // never ran: no sample
            }
            if (drop) {
                dropped++;
            } else {
                long micros = Math.max(1, latencyNanos / 1_000);
                completed++;
                latencySum += micros;
                lowest = Math.min(lowest, micros);
                if (state.noLoadMicros() > 0 && micros > settings.tolerance() * state.noLoadMicros()) {
                    slow++;
                }
            }
            return held;
        }

        /** Applies the window being measured if it has closed, and starts the one {@code now} falls in. */
        private void roll(long now) {
            long index = Math.floorDiv(now, settings.window().toNanos());
            if (index == windowIndex) {
                return;
            }
            if (windowIndex != Long.MIN_VALUE) {
                state = AdaptiveLimit.next(
                        settings,
                        state,
                        new AdaptiveLimit.Window(completed, latencySum, lowest, slow, dropped, refused, peak));
            }
            windowIndex = index;
            completed = latencySum = slow = dropped = refused = 0;
            lowest = Long.MAX_VALUE;
            peak = live.size(); // the calls still running are in flight in the new window too
        }
    }

    private final class SlotPermit implements AdaptivePermit {

        private final Adaptive adaptive;
        private final Slot slot;
        private final long takenAt;
        private final int limit;
        private final AtomicBoolean ended = new AtomicBoolean();

        SlotPermit(Adaptive adaptive, Slot slot, long takenAt, int limit) {
            this.adaptive = adaptive;
            this.slot = slot;
            this.takenAt = takenAt;
            this.limit = limit;
        }

        private boolean end(@Nullable Boolean drop) {
            if (!ended.compareAndSet(false, true)) {
                return false;
            }
            long now = nanoTime.getAsLong();
            return adaptive.end(slot, now, now - takenAt, drop);
        }

        @Override
        public boolean release() {
            return end(false);
        }

        @Override
        public CompletionStage<Boolean> releaseAsync() {
            return CompletableFuture.completedFuture(release());
        }

        @Override
        public boolean drop() {
            return end(true);
        }

        @Override
        public CompletionStage<Boolean> dropAsync() {
            return CompletableFuture.completedFuture(drop());
        }

        @Override
        public CompletionStage<Boolean> giveBackAsync() {
            return CompletableFuture.completedFuture(end(null));
        }

        @Override
        public int limit() {
            return limit;
        }
    }
}
