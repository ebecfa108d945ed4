package io.github.ratelimit.core.internal;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
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
    /** Operators' steerings, by the same keys as {@link #adaptive}. */
    private final Map<String, Steering> steerings = new ConcurrentHashMap<>();

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
        String key = key(name, identifier);
        Adaptive limit = adaptive.computeIfAbsent(key, k -> new Adaptive(k, settings));
        long now = nanoTime.getAsLong();
        Slot slot = new Slot(now + maxLifetime.toNanos());
        SlotPermit permit = limit.take(settings, slot, now);
        if (permit == null) {
            throw new ConcurrencyLimitExceededException(name, limit.slots(), RETRY_AFTER);
        }
        return permit;
    }

    private static String key(String name, ClientIdentifier identifier) {
        return name + '\u0000' + identifier.canonical();
    }

    @Override
    public @Nullable Status status(String name, ClientIdentifier identifier) {
        String key = key(name, identifier);
        Adaptive limit = adaptive.get(key);
        Steering steering = steerings.get(key);
        if (limit == null) {
            return steering == null ? null : new Status(0, null, 1, steering, List.of());
        }
        return limit.status(steering);
    }

    @Override
    public void steer(String name, ClientIdentifier identifier, @Nullable Steering steering) {
        String key = key(name, identifier);
        if (steering == null) {
            steerings.remove(key);
        } else {
            steerings.put(key, steering);
        }
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
    private final class Adaptive {
        private final String key;
        private final Set<Slot> live = new HashSet<>();
        /** The last windows applied, newest first. */
        private final Deque<Window> windows = new ArrayDeque<>();

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

        /** The mean latency of the last window applied, µs; 0 when it completed no call. */
        private long recentMicros;

        Adaptive(String key, AdaptiveSettings settings) {
            this.key = key;
            this.settings = settings;
            this.state = AdaptiveLimit.start(settings);
        }

        /** The slots of the current window: the limit's whole part (the step keeps it within the bounds). */
        synchronized int slots() {
            return Math.max(1, state.slots());
        }

        /** Takes a slot: its permit, or null when all the slots were taken. */
        synchronized @Nullable SlotPermit take(AdaptiveSettings settings, Slot slot, long now) {
            this.settings = settings; // the latest a caller declared
            roll(now);
            live.removeIf(s -> now - s.endsAtNanos >= 0);
            int slots = slots();
            if (live.size() >= slots) {
                refused++;
                return null;
            }
            live.add(slot);
            peak = Math.max(peak, live.size());
            return new SlotPermit(
                    this, slot, now, slots, live.size(), micros(state.noLoadMicros()), micros(recentMicros));
        }

        synchronized Status status(@Nullable Steering steering) {
            return new Status(slots(), micros(state.noLoadMicros()), 1, steering, new ArrayList<>(windows));
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
                        steerings.get(key),
                        state,
                        new AdaptiveLimit.Window(completed, latencySum, lowest, slow, dropped, refused, peak));
                recentMicros = completed == 0 ? 0 : latencySum / completed;
                windows.addFirst(
                        new Window(windowIndex, slots(), completed, dropped, refused, peak, micros(recentMicros)));
                if (windows.size() > Status.WINDOWS_KEPT) {
                    windows.removeLast();
                }
            }
            windowIndex = index;
            completed = latencySum = slow = dropped = refused = 0;
            lowest = Long.MAX_VALUE;
            peak = live.size(); // the calls still running are in flight in the new window too
        }
    }

    /** A latency in µs as a duration; null for 0 (nothing measured). */
    public static @Nullable Duration micros(long micros) {
        return micros <= 0 ? null : Duration.ofNanos(micros * 1_000);
    }

    private final class SlotPermit implements AdaptivePermit {

        private final Adaptive adaptive;
        private final Slot slot;
        private final long takenAt;
        private final int limit;
        private final int inFlight;
        private final @Nullable Duration noLoad;
        private final @Nullable Duration recent;
        private final AtomicBoolean ended = new AtomicBoolean();

        SlotPermit(
                Adaptive adaptive,
                Slot slot,
                long takenAt,
                int limit,
                int inFlight,
                @Nullable Duration noLoad,
                @Nullable Duration recent) {
            this.adaptive = adaptive;
            this.slot = slot;
            this.takenAt = takenAt;
            this.limit = limit;
            this.inFlight = inFlight;
            this.noLoad = noLoad;
            this.recent = recent;
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

        @Override
        public int inFlight() {
            return inFlight;
        }

        @Override
        public @Nullable Duration noLoadLatency() {
            return noLoad;
        }

        @Override
        public @Nullable Duration recentLatency() {
            return recent;
        }
    }
}
