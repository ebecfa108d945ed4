package io.github.ratelimit.local;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.internal.AdaptiveSlots;
import io.github.ratelimit.core.internal.Messages;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Concurrency limits in this instance's memory ({@code ratelimit.store=memory}): at most {@code max} slots of a key
 * taken at once, each given back exactly once, or freed at its maximum lifetime. A slot needs no lease here: its
 * holder lives as long as this memory. An adaptive limit adapts here for this instance alone, window by window on this
 * instance's clock, with the step the Redis store applies for a fleet ({@code AdaptiveSlots}). Its listeners are told
 * of each slot taken or refused, as the Redis store's are.
 */
public final class LocalConcurrencyLimiter
        implements ConcurrencyLimiter, AdaptiveConcurrencyLimiter, RateLimitEvents.Source {

    private final RateLimitEvents events = new RateLimitEvents();

    /** What a refused caller is told to wait, as the Redis store tells it. */
    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final Map<String, Set<Slot>> slots = new ConcurrentHashMap<>();
    private final AdaptiveSlots adaptive = new AdaptiveSlots(System::nanoTime);

    private static final class Slot {
        final long endsAtNanos;

        Slot(long endsAtNanos) {
            this.endsAtNanos = endsAtNanos;
        }
    }

    /** Where listeners of this implementation's events are added. */
    @Override
    public RateLimitEvents events() {
        return events;
    }

    @Override
    public Permit tryAcquire(String name, ClientIdentifier identifier, int max, Duration lease, Duration maxLifetime) {
        return RateLimitEvents.observe(events.acquiringSlot(name), () -> take(name, identifier, max, maxLifetime));
    }

    private Permit take(String name, ClientIdentifier identifier, int max, Duration maxLifetime) {
        if (max < 1) {
            throw new IllegalArgumentException(Messages.between("max", 1, Integer.MAX_VALUE, max));
        }
        if (maxLifetime.toMillis() < 1) {
            throw new IllegalArgumentException(Messages.atLeast("maxLifetime", "1 ms", maxLifetime));
        }
        String key = name + '\u0000' + identifier.canonical();
        long now = System.nanoTime();
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
            long now = System.nanoTime();
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
        // the listeners see a slot of a concurrency limit, as for a fixed limit
        return (AdaptiveConcurrencyLimiter.AdaptivePermit) RateLimitEvents.<Permit>observe(
                events.acquiringSlot(name), () -> adaptive.tryAcquire(name, identifier, settings, lease, maxLifetime));
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

    @Override
    public AdaptiveConcurrencyLimiter.@Nullable Status status(String name, ClientIdentifier identifier) {
        return adaptive.status(name, identifier);
    }

    @Override
    public void steer(
            String name, ClientIdentifier identifier, AdaptiveConcurrencyLimiter.@Nullable Steering steering) {
        adaptive.steer(name, identifier, steering);
    }
}
