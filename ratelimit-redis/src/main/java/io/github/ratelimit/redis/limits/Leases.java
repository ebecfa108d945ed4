package io.github.ratelimit.redis.limits;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RateLimitListener.Lease;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The leased limits of one {@link RedisRateLimiter}: each (limit, identifier) holds a lease of permits taken from Redis
 * (lease.lua, one script call), and a call is decided from it in the JVM until the lease is spent or its window ends.
 *
 * <p>Why a window never admits more than its limit: the script grants a window's permits only up to the limit, and a
 * lease is spent only while {@code System.nanoTime()} is before its deadline, which is the window's end as Redis told
 * it, counted from before the script was sent (so it falls before the true end by the call's round trip). A permit is
 * taken, then the deadline read again: a thread held up between the two gives its permit back rather than spend it
 * after the window. An instance that cannot reach Redis decides from what it holds, and refuses past it (the script
 * call fails as an exact decision's would).
 *
 * <p>How big a lease is: what the instance would ask for until the window's end at its own recent rate, capped by the
 * limit's lease ceiling and, in the script, by an even share of the limit among the instances leasing it. A quiet
 * instance holds little; a busy one asks about once per lease's worth of calls.
 */
final class Leases {

    static final LuaScript LEASE = LuaScript.load(Leases.class, "lease");

    /**
     * How many times a call asks for more before it is refused: each ask grants at least one permit unless the window
     * is spent, so only a call costing more than this many grants reach it.
     */
    static final int MAX_ATTEMPTS = 64;

    /** How many (limit, identifier) leases are kept; an evicted one returns what it holds. */
    static final long MAX_LEASES = 10_000;

    private final ScriptExecutor executor;
    private final RedisKeys keys;
    private final RateLimitEvents events;
    private final Cache<Leased, Held> held;

    Leases(ScriptExecutor executor, RedisKeys keys, RateLimitEvents events) {
        this.executor = executor;
        this.keys = keys;
        this.events = events;
        this.held = Caffeine.newBuilder()
                .maximumSize(MAX_LEASES)
                .expireAfterAccess(Duration.ofMinutes(10))
                .executor(Runnable::run)
                .removalListener((@Nullable Leased key, @Nullable Held lease, RemovalCause cause) -> {
                    if (lease != null && cause.wasEvicted()) {
                        lease.giveBack();
                    }
                })
                .build();
    }

    static IllegalArgumentException unsupported(String what, List<LimitRequest> requests) {
        for (LimitRequest request : requests) {
            if (request.limit().leased()) {
                return new IllegalArgumentException("limit '" + request.limit().name() + "' is leased, which does not"
                        + " take " + what + "; leave its lease out to decide it in Redis on every call");
            }
        }
        throw new IllegalStateException("no leased limit");
    }

    static boolean any(List<LimitRequest> requests) {
        for (LimitRequest request : requests) {
            if (request.limit().leased()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Decides a call with leased limits: its leased requests from their leases (asking Redis for more when one cannot
     * pay), then, when all of them admit it, its other requests by {@code exact}. A call refused by either takes
     * nothing: what leases gave is put back.
     */
    CompletableFuture<Decision> decide(
            List<LimitRequest> requests, Function<List<LimitRequest>, CompletableFuture<Decision>> exact) {
        return decide(requests, exact, 0);
    }

    private CompletableFuture<Decision> decide(
            List<LimitRequest> requests, Function<List<LimitRequest>, CompletableFuture<Decision>> exact, int attempt) {
        List<LimitRequest> others = new ArrayList<>(requests.size());
        List<LimitOutcome> outcomes = new ArrayList<>(requests.size());
        List<Taken> taken = new ArrayList<>(requests.size());
        boolean refused = false;
        Instant decidedAt = Instant.EPOCH;
        boolean first = true;
        for (LimitRequest request : requests) {
            if (!request.limit().leased()) {
                others.add(request);
                continue;
            }
            Held lease = held.get(
                    new Leased(request.limit(), request.identifier()), key -> new Held(keyOf(request), key.limit));
            long now = System.nanoTime();
            long refillsSeen = lease.refills.get();
            int answer = lease.take(request.cost(), now, taken, !request.checkOnly(), attempt == 0);
            if (answer == Held.ASK) {
                putBack(taken);
                // what the lease could not pay: more is asked for, then the whole call decided again
                return lease.refill(request.cost(), now, refillsSeen)
                        .thenCompose(done -> attempt < MAX_ATTEMPTS
                                ? decide(requests, exact, attempt + 1)
                                : CompletableFuture.completedFuture(
                                        refusedNow(requests, lease.redisTime(System.nanoTime()))));
            }
            boolean admitted = answer == Held.TAKEN;
            if (!admitted && !request.shadow()) {
                refused = true;
            }
            outcomes.add(lease.outcome(request, admitted, now));
            if (first) {
                decidedAt = lease.redisTime(now);
                first = false;
            }
        }
        if (refused) {
            putBack(taken);
            return CompletableFuture.completedFuture(new Decision(false, outcomes, decidedAt, true, requests));
        }
        if (others.isEmpty()) {
            return CompletableFuture.completedFuture(new Decision(true, outcomes, decidedAt, false, requests));
        }
        return exact.apply(others).handle((decision, error) -> {
            if (error != null || !decision.allowed()) {
                putBack(taken);
            }
            if (error != null) {
                throw error instanceof RuntimeException e ? e : new CompletionException(error);
            }
            List<LimitOutcome> all = new ArrayList<>(decision.outcomes());
            all.addAll(outcomes);
            return new Decision(decision.allowed(), all, decision.decidedAt(), decision.servedLocally(), requests);
        });
    }

    private Decision refusedNow(List<LimitRequest> requests, Instant decidedAt) {
        List<LimitOutcome> outcomes = new ArrayList<>();
        for (LimitRequest request : requests) {
            if (request.limit().leased()) {
                outcomes.add(new LimitOutcome(request, false, 0, Duration.ZERO, Duration.ZERO));
            }
        }
        return new Decision(false, outcomes, decidedAt, true, requests);
    }

    private static void putBack(List<Taken> taken) {
        for (Taken t : taken) {
            t.window.permits.addAndGet(t.units);
        }
        taken.clear();
    }

    /** Forgets the lease of a limit and identifier (after a reset), returning nothing: its window was reset. */
    void forget(RateLimit limit, ClientIdentifier identifier) {
        held.invalidate(new Leased(limit, identifier));
    }

    String keyOf(LimitRequest request) {
        return keys.rateLimitKey(request.limit(), RedisKeys.tag(request.identifier())) + ":ls";
    }

    /** Returns what every lease holds of its window, and forgets them (this instance stops or forgets its state). */
    CompletableFuture<Void> giveBackAll() {
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (Held lease : held.asMap().values()) {
            sent.add(lease.giveBack());
        }
        held.invalidateAll();
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
    }

    private record Taken(Window window, long units) {}

    private record Leased(RateLimit limit, ClientIdentifier identifier) {}

    /**
     * What a lease holds of one window: a new one for each window, so that a permit is always checked against the
     * deadline of the window it was granted in (a call that read the last window never spends this one's, nor the
     * reverse).
     */
    private static final class Window {

        static final Window NONE = new Window(-1, System.nanoTime(), 0, 0, 0);

        final long index;

        /**
         * nanoTime before which the window's permits may be spent: its end, counted from before Redis was asked; moved
         * later by a later grant of the same window whose call took less time (the first may have waited for the
         * script to load).
         */
        volatile long deadline;

        /** Redis's time (ms) when the window's first grant was sent, and the nanoTime then. */
        final long redisMsAtSend;

        final long sentNanos;

        /** Permits left; taken by compare-and-set, so that no two calls spend one. */
        final AtomicLong permits;

        /**
         * What Redis had left in the window after the last grant: the callers' remaining count, and none left means the
         * window is spent once the lease is.
         */
        volatile long left;

        /**
         * nanoTime until which a spent window ({@code left} 0) is not asked about again: its end counted from when
         * Redis's answer arrived, so at or after Redis's own end. Until then an ask could only land in this window and
         * learn it is spent; a call between the deadline and this time is refused as the window's.
         */
        volatile long spentUntil;

        Window(long index, long deadline, long redisMsAtSend, long sentNanos, long permits) {
            this.index = index;
            this.deadline = deadline;
            this.redisMsAtSend = redisMsAtSend;
            this.sentNanos = sentNanos;
            this.permits = new AtomicLong(permits);
        }

        boolean over(long now) {
            return now - deadline >= 0;
        }
    }

    /** One (limit, identifier)'s lease on this instance. */
    private final class Held {

        static final int TAKEN = 0;
        static final int SPENT = 1;
        static final int ASK = 2;

        final String key;
        final RateLimit limit;

        volatile Window current = Window.NONE;

        /** Units asked for since the last refill (admitted or not): this instance's demand. */
        final LongAdder asked = new LongAdder();

        /** How many answers to refills arrived (or failed): a call that saw fewer decides again before asking. */
        final AtomicLong refills = new AtomicLong();

        /** The refill in flight, shared by every call that waits for it. */
        private @Nullable CompletableFuture<Void> refill;

        private boolean measured;
        private long lastRefillNanos;
        private double ratePerMs;

        Held(String key, RateLimit limit) {
            this.key = key;
            this.limit = limit;
        }

        /**
         * Takes {@code cost} permits of the current window into {@code into} (or only checks, not {@code keep}), or
         * says why not; {@code first}: the call's first try, counted in this instance's demand.
         */
        int take(long cost, long now, List<Taken> into, boolean keep, boolean first) {
            if (first) {
                // demand: a call decided again after a refill is counted once
                asked.add(cost);
            }
            Window window = current;
            if (window.over(now)) {
                return window.left == 0 && now - window.spentUntil < 0 ? SPENT : ASK;
            }
            AtomicLong permits = window.permits;
            for (long p = permits.get(); p >= cost; p = permits.get()) {
                if (permits.compareAndSet(p, p - cost)) {
                    if (window.over(System.nanoTime())) {
                        // held up past the window's end: its permit is of a window gone, not to be spent
                        permits.addAndGet(cost);
                        return ASK;
                    }
                    if (cost > 0) {
                        if (keep) {
                            into.add(new Taken(window, cost));
                        } else {
                            permits.addAndGet(cost);
                        }
                    }
                    return TAKEN;
                }
            }
            return window.left == 0 ? SPENT : ASK;
        }

        LimitOutcome outcome(LimitRequest request, boolean admitted, long now) {
            Window window = current;
            Duration reset = Duration.ofMillis(Math.max(1, TimeUnit.NANOSECONDS.toMillis(window.deadline - now) + 1));
            long remaining = Math.max(0, Math.min(limit.limit(), window.permits.get() + window.left));
            return admitted
                    ? new LimitOutcome(request, true, remaining, reset, Duration.ZERO)
                    : new LimitOutcome(request, false, 0, reset, reset);
        }

        /** Redis's time now as this instance reckons it, within the lease's window (what a decision says it was at). */
        Instant redisTime(long now) {
            Window window = current;
            long end = (window.index + 1) * limit.windowMs() - 1;
            long elapsed = TimeUnit.NANOSECONDS.toMillis(Math.max(0, now - window.sentNanos));
            return Instant.ofEpochMilli(Math.min(end, window.redisMsAtSend + elapsed));
        }

        /**
         * Asks Redis for more, once for every call that finds the lease short at the same time: a call that looked at
         * the lease before the last answer arrived decides again on what that answer brought, without asking.
         */
        synchronized CompletableFuture<Void> refill(long cost, long now, long refillsSeen) {
            if (refill != null) {
                return refill;
            }
            if (refills.get() != refillsSeen) {
                return CompletableFuture.completedFuture(null);
            }
            long units = asked.sumThenReset();
            double rate =
                    measured ? (double) units / Math.max(1, TimeUnit.NANOSECONDS.toMillis(now - lastRefillNanos)) : 0;
            ratePerMs = measured ? (ratePerMs + rate) / 2 : rate;
            measured = true;
            lastRefillNanos = now;
            Window window = current;
            long windowMs = limit.windowMs();
            long leftMs;
            if (!window.over(now)) {
                leftMs = TimeUnit.NANOSECONDS.toMillis(window.deadline - now);
            } else if (window.index >= 0) {
                // a window later than the lease's: where in it, guessed from the lease's deadline
                leftMs = windowMs - TimeUnit.NANOSECONDS.toMillis(now - window.deadline) % windowMs;
            } else {
                leftMs = windowMs;
            }
            long short_ = window.over(now) ? cost : Math.max(0, cost - window.permits.get());
            long want = cost == 0 ? 0 : Math.max(Math.max(1, short_), (long) Math.ceil(ratePerMs * leftMs));
            long sent = System.nanoTime();
            CompletableFuture<Void> asking = lease(want, window.index, 0, -1).handle((reply, error) -> {
                granted(reply, error, sent, want);
                return null;
            });
            if (!asking.isDone()) {
                refill = asking;
            }
            return asking;
        }

        private synchronized void granted(
                @Nullable List<Object> reply, @Nullable Throwable error, long sent, long want) {
            refill = null;
            refills.incrementAndGet();
            if (error != null || reply == null) {
                if (want > 0) {
                    // the grant may have been made: what it held is lost to its window
                    events.leased(limit.name(), Lease.LOST, want);
                }
                throw error instanceof RuntimeException e ? e : new CompletionException("no lease granted", error);
            }
            long granted = ScriptExecutor.number(reply.get(0));
            long left = ScriptExecutor.number(reply.get(1));
            long endsMs = ScriptExecutor.number(reply.get(2));
            long index = ScriptExecutor.number(reply.get(3));
            Window window = current;
            if (index == window.index) {
                window.permits.addAndGet(granted);
                long ends = sent + TimeUnit.MILLISECONDS.toNanos(endsMs);
                if (ends - window.deadline > 0) {
                    window.deadline = ends;
                }
            } else {
                long unused = window.permits.getAndSet(0);
                if (unused > 0) {
                    events.leased(limit.name(), Lease.LOST, unused);
                }
                long redisMs = (index + 1) * limit.windowMs() - endsMs;
                window = new Window(index, sent + TimeUnit.MILLISECONDS.toNanos(endsMs), redisMs, sent, granted);
            }
            window.left = left;
            window.spentUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(endsMs + 1);
            current = window;
            if (want > 0) {
                events.leased(limit.name(), Lease.TAKEN, granted);
            }
        }

        /** One call of lease.lua (its arguments are described there). */
        private CompletableFuture<List<Object>> lease(long want, long lastWindow, long back, long backWindow) {
            return executor.callAsync(LEASE, List.of(key), new Object[] {
                limit.limit(), limit.windowMs(), want, limit.leaseCeiling(), lastWindow, back, backWindow
            });
        }

        /** Returns the unused permits of a window not yet over. */
        CompletableFuture<?> giveBack() {
            Window window = current;
            long unused = window.permits.getAndSet(0);
            if (unused <= 0 || window.over(System.nanoTime())) {
                return CompletableFuture.completedFuture(null);
            }
            return lease(0, window.index, unused, window.index).handle((reply, error) -> {
                long returned = error == null && reply != null ? ScriptExecutor.number(reply.get(4)) : 0;
                if (returned > 0) {
                    events.leased(limit.name(), Lease.RETURNED, returned);
                }
                if (unused > returned) {
                    events.leased(limit.name(), Lease.LOST, unused - returned);
                }
                return null;
            });
        }
    }
}
