package io.github.ratelimit.local;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.internal.AdaptiveLimit;
import io.github.ratelimit.core.internal.Messages;
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
 * Concurrency limits in this instance's memory ({@code ratelimit.store=memory}): at most {@code max} slots of a key
 * taken at once, each given back exactly once, or freed at its maximum lifetime. A slot needs no lease here: its
 * holder lives as long as this memory. An adaptive limit adapts here for this instance alone, window by window on this
 * instance's clock, with the step the Redis store applies for a fleet ({@code AdaptiveLimit}).
 */
public final class LocalConcurrencyLimiter implements ConcurrencyLimiter, AdaptiveConcurrencyLimiter {

    /** What a refused caller is told to wait, as the Redis store tells it. */
    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final Map<String, Set<Slot>> slots = new ConcurrentHashMap<>();
    private final Map<String, Adaptive> adaptive = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    public LocalConcurrencyLimiter() {
        this(System::nanoTime);
    }

    /** With a clock of nanoseconds that tests control (the windows of adaptive limits and the lifetimes of slots). */
    LocalConcurrencyLimiter(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    private static final class Slot {
        final long endsAtNanos;

        Slot(long endsAtNanos) {
            this.endsAtNanos = endsAtNanos;
        }
    }

    @Override
    public Permit tryAcquire(String name, ClientIdentifier identifier, int max, Duration lease, Duration maxLifetime) {
        if (max < 1) {
            throw new IllegalArgumentException(Messages.between("max", 1, Integer.MAX_VALUE, max));
        }
        if (maxLifetime.toMillis() < 1) {
            throw new IllegalArgumentException(Messages.atLeast("maxLifetime", "1 ms", maxLifetime));
        }
        String key = name + '\u0000' + identifier.canonical();
        long now = nanoTime.getAsLong();
        Slot slot = new Slot(now + maxLifetime.toNanos());
        boolean[] taken = new boolean[1];
        slots.compute(key, (k, held) -> {
            Set<Slot> live = held == null ? new HashSet<>() : held;
            live.removeIf(s -> now - s.endsAtNanos >= 0);
            if (live.size() < max) {
                live.add(slot);
                taken[0] = true;
            }
            return live.isEmpty() ? null : live;
        });
        if (!taken[0]) {
            throw new ConcurrencyLimitExceededException(name, max, RETRY_AFTER);
        }
        return new LocalPermit(key, slot);
    }

    @Override
    public CompletionStage<Permit> tryAcquireAsync(
            String name, ClientIdentifier identifier, int max, Duration lease, Duration maxLifetime) {
        try {
            return CompletableFuture.completedFuture(tryAcquire(name, identifier, max, lease, maxLifetime));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private final class LocalPermit implements Permit {

        private final String key;
        private final Slot slot;
        private final AtomicBoolean released = new AtomicBoolean();

        LocalPermit(String key, Slot slot) {
            this.key = key;
            this.slot = slot;
        }

        @Override
        public boolean release() {
            if (!released.compareAndSet(false, true)) {
                return false;
            }
            boolean[] held = new boolean[1];
            long now = nanoTime.getAsLong();
            slots.computeIfPresent(key, (k, live) -> {
                held[0] = live.remove(slot) && now - slot.endsAtNanos < 0;
                return live.isEmpty() ? null : live;
            });
            return held[0];
        }

        @Override
        public CompletionStage<Boolean> releaseAsync() {
            return CompletableFuture.completedFuture(release());
        }
    }

    @Override
    public AdaptiveConcurrencyLimiter.AdaptivePermit tryAcquire(
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
        return new LocalAdaptivePermit(limit, slot, now, slots);
    }

    @Override
    public CompletionStage<AdaptiveConcurrencyLimiter.AdaptivePermit> tryAcquireAsync(
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

    private final class LocalAdaptivePermit implements AdaptiveConcurrencyLimiter.AdaptivePermit {

        private final Adaptive adaptive;
        private final Slot slot;
        private final long takenAt;
        private final int limit;
        private final AtomicBoolean ended = new AtomicBoolean();

        LocalAdaptivePermit(Adaptive adaptive, Slot slot, long takenAt, int limit) {
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
