package io.github.ratelimit.spring.definition.internal;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.AdaptivePermit;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter.Permit;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.spring.definition.ConcurrencySpec;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The concurrency limits of the rules a call matches ({@code ratelimit.client.rules[i].concurrency}, {@code
 * ratelimit.filter.rules[i].concurrency}): their slots are taken once the rules' limits admitted the call, in the
 * rules' order, and given back once with its answer. A call refused a slot gives back those it took and is not run. An adaptive limit's slot is given back as completed (its latency a
 * sample) or, after a 429, a 5xx or an error, as dropped. While Redis cannot decide, an adaptive limit adapts each
 * instance's share in memory; a fixed one lets the call through unless its rule's failure mode is {@code closed}.
 */
public final class RuleSlots {

    private RuleSlots() {}

    /** One rule's concurrency limit, checked. */
    public record Limit(
            String name,
            ClientIdentifier identifier,
            int max,
            @Nullable AdaptiveSettings adaptive,
            Duration lease,
            Duration maxLifetime,
            FailureMode failureMode) {

        /** The limit {@code spec} declares for the rule {@code name}; the start fails naming the property. */
        public static Limit compile(
                ConcurrencySpec spec, String name, ClientIdentifier identifier, FailureMode mode, String prefix) {
            String at = prefix + ".concurrency";
            if (spec.max() < 1) {
                throw new InvalidFilterRuleException(at + ".max", Messages.atLeast(null, 1, spec.max()));
            }
            Duration lease = spec.lease() == null ? Duration.ofSeconds(10) : spec.lease();
            Duration lifetime = spec.maxLifetime() == null ? Duration.ofMinutes(5) : spec.maxLifetime();
            if (lease.toMillis() < 100) {
                throw new InvalidFilterRuleException(at + ".lease", Messages.atLeast(null, "100 ms", lease));
            }
            if (lifetime.compareTo(lease) < 0) {
                throw new InvalidFilterRuleException(
                        at + ".max-lifetime", "must be at least the lease " + lease + ", but was " + lifetime);
            }
            Duration window = spec.window() == null ? AdaptiveSettings.DEFAULT_WINDOW : spec.window();
            if (!spec.adaptive()) {
                if (spec.min() != 1
                        || spec.initial() != 0
                        || spec.tolerance() != AdaptiveSettings.DEFAULT_TOLERANCE
                        || !window.equals(AdaptiveSettings.DEFAULT_WINDOW)) {
                    throw new InvalidFilterRuleException(
                            at,
                            "min, initial, tolerance and window apply to an adaptive limit only; set adaptive: true,"
                                    + " or remove them for a fixed limit of max " + spec.max());
                }
                return new Limit(name, identifier, spec.max(), null, lease, lifetime, mode);
            }
            AdaptiveSettings settings;
            try {
                settings = new AdaptiveSettings(
                        spec.min(),
                        spec.max(),
                        spec.initial() == 0 ? spec.min() : spec.initial(),
                        spec.tolerance(),
                        window);
            } catch (IllegalArgumentException e) {
                throw new InvalidFilterRuleException(at, "adaptive limit: " + e.getMessage());
            }
            return new Limit(name, identifier, spec.max(), settings, lease, lifetime, mode);
        }

        /** Takes this limit's slot: its permit, or null when Redis cannot decide and the call may go without one. */
        @Nullable
        public Permit take(ConcurrencyLimiter limiter) {
            try {
                return adaptive == null
                        ? limiter.tryAcquire(name, identifier, max, lease, maxLifetime)
                        : adaptive(limiter).tryAcquire(name, identifier, adaptive, lease, maxLifetime);
            } catch (RedisUnavailableException e) {
                if (failureMode == FailureMode.CLOSED) {
                    throw e;
                }
                return null;
            }
        }

        public CompletionStage<@Nullable Permit> takeAsync(ConcurrencyLimiter limiter) {
            CompletionStage<? extends Permit> taken;
            try {
                taken = adaptive == null
                        ? limiter.tryAcquireAsync(name, identifier, max, lease, maxLifetime)
                        : adaptive(limiter).tryAcquireAsync(name, identifier, adaptive, lease, maxLifetime);
            } catch (RuntimeException e) {
                taken = CompletableFuture.failedFuture(e);
            }
            return taken.handle((permit, error) -> {
                if (error == null) {
                    return permit;
                }
                Throwable cause = Futures.cause(error);
                if (cause instanceof RedisUnavailableException && failureMode != FailureMode.CLOSED) {
                    return null;
                }
                throw cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
            });
        }

        private AdaptiveConcurrencyLimiter adaptive(ConcurrencyLimiter limiter) {
            if (limiter instanceof AdaptiveConcurrencyLimiter adaptiveLimiter) {
                return adaptiveLimiter;
            }
            throw new IllegalStateException(
                    "outbound rule '" + name + "' has an adaptive concurrency limit, which needs"
                            + " a ConcurrencyLimiter that is also an AdaptiveConcurrencyLimiter (the Redis and memory stores"
                            + " are), but the one in the context is "
                            + limiter.getClass().getName());
        }
    }

    /** The slots one call holds; given back once. */
    public static final class Held {

        public static final Held NONE = new Held(List.of());

        private final List<Permit> permits;
        private final AtomicBoolean ended = new AtomicBoolean();

        Held(List<Permit> permits) {
            this.permits = permits;
        }

        /** The upstream answered {@code status}: a 429 or a 5xx is a drop, anything else a completed call. */
        public void answered(int status) {
            end(status == 429 || status >= 500);
        }

        /** The call failed (an I/O error, a timeout) or was cancelled: a drop. */
        public void failed() {
            end(true);
        }

        /** The call was never sent: every slot back, without a sample. */
        public void notSent() {
            if (ended.compareAndSet(false, true)) {
                for (Permit permit : permits) {
                    if (permit instanceof AdaptivePermit adaptive) {
                        adaptive.giveBackAsync();
                    } else {
                        permit.releaseAsync();
                    }
                }
            }
        }

        /** The call ended: completed (its latency a sample), or dropped. */
        public void end(boolean dropped) {
            if (ended.compareAndSet(false, true)) {
                for (Permit permit : permits) {
                    if (permit instanceof AdaptivePermit adaptive && dropped) {
                        adaptive.dropAsync();
                    } else {
                        permit.releaseAsync();
                    }
                }
            }
        }
    }

    /** Takes the slots of {@code limits} in order; a refusal gives back those taken and is thrown. */
    public static Held take(List<Limit> limits, @Nullable ConcurrencyLimiter limiter) {
        if (limits.isEmpty()) {
            return Held.NONE;
        }
        ConcurrencyLimiter store = require(limiter, limits);
        List<Permit> permits = new ArrayList<>(limits.size());
        try {
            for (Limit limit : limits) {
                Permit permit = limit.take(store);
                if (permit != null) {
                    permits.add(permit);
                }
            }
        } catch (RuntimeException e) {
            new Held(permits).notSent();
            throw e;
        }
        return new Held(permits);
    }

    /** The same without blocking the calling thread. */
    public static CompletionStage<Held> takeAsync(List<Limit> limits, @Nullable ConcurrencyLimiter limiter) {
        if (limits.isEmpty()) {
            return CompletableFuture.completedFuture(Held.NONE);
        }
        ConcurrencyLimiter store;
        try {
            store = require(limiter, limits);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        List<Permit> permits = new ArrayList<>(limits.size());
        CompletionStage<Void> taken = CompletableFuture.completedFuture(null);
        for (Limit limit : limits) {
            taken = taken.thenCompose(ignored -> limit.takeAsync(store)).thenAccept(permit -> {
                if (permit != null) {
                    synchronized (permits) {
                        permits.add(permit);
                    }
                }
            });
        }
        return taken.handle((ignored, error) -> {
            Held held;
            synchronized (permits) {
                held = new Held(List.copyOf(permits));
            }
            if (error != null) {
                held.notSent();
                Throwable cause = Futures.cause(error);
                throw cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
            }
            return held;
        });
    }

    private static ConcurrencyLimiter require(@Nullable ConcurrencyLimiter limiter, List<Limit> limits) {
        if (limiter == null) {
            throw new IllegalStateException("rule '" + limits.get(0).name() + "' has a concurrency limit,"
                    + " which needs a ConcurrencyLimiter (Redis, or ratelimit.store=memory)");
        }
        return limiter;
    }
}
