package io.github.ratelimit.redis.limits;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.SlotHolder;
import io.github.ratelimit.core.Usage;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.GiveBacks;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Decides all requests of one call in a single Lua script call: one network round trip, atomic, time taken
 * from the Redis server.
 *
 * <p>On a Redis Cluster, keys of one identifier share a hash slot; a call whose identifiers fall into several
 * slots sends one script per slot, all at once (about one round trip). Each slot's part is atomic; when one slot
 * refuses a call that another admitted, what the admitting slots took is given back (one more round trip, only
 * for such calls, idempotent, from the same window or bucket) before the decision returns, so a refused call
 * consumes nothing on a cluster either. Between the take and the give-back, concurrent calls see those units
 * taken: they can be refused, never admitted beyond the limit.
 *
 * <p>Under load, concurrent calls for the same slot share a script call (see {@code ScriptBatcher}); each is
 * still decided on its own, all or nothing, in the order it was queued.
 */
public final class RedisRateLimiter implements RateLimiter, RateLimitEvents.Source, SlotHolder, AutoCloseable {

    private final RateLimitEvents events = new RateLimitEvents();

    /** Pauses a limit (ratelimit_pause.lua). */
    static final LuaScript PAUSE = LuaScript.load(RedisRateLimiter.class, "ratelimit_pause");

    private final ScriptExecutor executor;
    private final RedisGuard guard;
    private final RedisKeys keys;
    private final RedissonClient redisson;
    /** What this instance keeps of Redis's refusals, and the resets that make it forget them. */
    private final KeptRefusals kept;
    /** Decides calls with the decision scripts. */
    private final Decider decider;
    /** Waiting calls that hold the slot they are advised. */
    private final HeldSlots held;
    /** Units credited or charged after a decision. */
    private final CreditsAndCharges units;
    /** The leases of leased limits (see {@link RateLimit#withLease}), decided in the JVM while they last. */
    private final Leases leases;

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     * @param guard the latency budget and circuit breaker, shared by everything that uses this Redis
     */
    public RedisRateLimiter(RedissonClient redisson, String keyPrefix, RedisGuard guard) {
        this(redisson, keyPrefix, guard, DEFAULT_HORIZON_WINDOWS);
    }

    /** Staggered advice reaches at most this many windows ahead, unless the earliest retry is later. */
    public static final int DEFAULT_HORIZON_WINDOWS = 10;

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     * @param guard the latency budget and circuit breaker, shared by everything that uses this Redis
     * @param horizonWindows how many windows ahead staggered retry advice may reach, at least 1
     */
    public RedisRateLimiter(RedissonClient redisson, String keyPrefix, RedisGuard guard, int horizonWindows) {
        this(redisson, keyPrefix, guard, horizonWindows, DEFAULT_LOCAL_REFUSALS);
    }

    /** How many (limit, identifier) refusals are kept in the JVM by default. */
    public static final long DEFAULT_LOCAL_REFUSALS = 100_000;

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     * @param guard the latency budget and circuit breaker, shared by everything that uses this Redis
     * @param horizonWindows how many windows ahead staggered retry advice may reach, at least 1
     * @param localRefusals how many refusals to serve in the JVM until they expire (see {@code LocalRefusals}); 0 to
     *     ask Redis on every call
     */
    public RedisRateLimiter(
            RedissonClient redisson, String keyPrefix, RedisGuard guard, int horizonWindows, long localRefusals) {
        if (localRefusals < 0) {
            throw new IllegalArgumentException(
                    Messages.negative("ratelimit.local-refusals.max-entries", localRefusals));
        }
        if (horizonWindows < 1) {
            throw new IllegalArgumentException(
                    Messages.atLeast("ratelimit.retry-advice.horizon-windows", 1, horizonWindows));
        }
        this.redisson = redisson;
        this.executor = new ScriptExecutor(redisson, guard);
        this.guard = guard;
        this.keys = new RedisKeys(keyPrefix);
        this.kept = new KeptRefusals(
                localRefusals == 0 ? null : new LocalRefusals(localRefusals),
                new ForgetAnnouncements(
                        redisson,
                        guard,
                        keys.resetChannel(),
                        "this instance keeps no refusal in its memory: Redis decides every call"));
        this.decider = new Decider(
                executor,
                guard,
                keys,
                new RateLimitScriptCodec(horizonWindows),
                redisson.getConfig().isClusterConfig(),
                kept,
                new SlotGiveBacks(executor, guard, events, kept));
        this.held = new HeldSlots(decider, events);
        this.units = new CreditsAndCharges(decider, guard, events);
        this.leases = new Leases(executor, keys, events);
    }

    /**
     * Gives back what the leases of leased limits hold unused, for the other instances (waiting at most the latency
     * budget). Nothing else: the client is not closed.
     */
    @Override
    public void close() {
        leases.giveBackAll().join();
    }

    /** Where listeners of this implementation's events are added. */
    @Override
    public RateLimitEvents events() {
        return events;
    }

    @Override
    public Decision tryAcquire(List<LimitRequest> requests) {
        return RateLimitEvents.observe(events.deciding(requests), () -> tryAcquireNow(requests));
    }

    private Decision tryAcquireNow(List<LimitRequest> requests) {
        if (Leases.any(requests)) {
            return joined(leases.decide(requests, this::tryAcquireNowAsync));
        }
        return decider.decide(decider.call(requests));
    }

    /** The same decision without waiting: one script call per hash slot, the budget kept by a timer. */
    @Override
    public CompletableFuture<Decision> tryAcquireAsync(List<LimitRequest> requests) {
        return RateLimitEvents.observeAsync(events.deciding(requests), () -> tryAcquireNowAsync(requests));
    }

    private CompletableFuture<Decision> tryAcquireNowAsync(List<LimitRequest> requests) {
        if (Leases.any(requests)) {
            return leases.decide(requests, this::tryAcquireNowAsync);
        }
        return decider.decideAsync(requests);
    }

    /**
     * Reads with the decision script at cost 0, which writes nothing for such a call: no listener is told and no
     * refusal kept in memory answers, so the counts are Redis's own.
     */
    @Override
    public Usage usage(List<LimitRequest> requests) {
        List<LimitRequest> reads = Usage.reads(requests);
        if (Leases.any(reads)) {
            return Usage.of(joined(leases.decide(reads, decider::readAsync)));
        }
        return Usage.of(decider.read(reads));
    }

    @Override
    public CompletableFuture<Usage> usageAsync(List<LimitRequest> requests) {
        List<LimitRequest> reads;
        try {
            reads = Usage.reads(requests);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return (Leases.any(reads) ? leases.decide(reads, decider::readAsync) : decider.readAsync(reads))
                .thenApply(Usage::of);
    }

    /** A lease's decision: complete unless it asks Redis, which it does within the guard's budget. */
    private static Decision joined(CompletableFuture<Decision> decision) {
        try {
            return decision.join();
        } catch (CompletionException e) {
            throw Futures.cause(e) instanceof RuntimeException cause ? cause : e;
        }
    }

    /**
     * One credit script call per hash slot (see decide/units.lua, credit), named by its attempt: an answer lost makes the
     * credit be sent again until Redis answers (about ten seconds), applied once. Then every instance forgets its
     * local refusals of the keys credited, as after a reset.
     */
    @Override
    public long credit(List<LimitRequest> requests, long units) {
        return this.units.credit(requests, units);
    }

    /**
     * Charges every request's limit and identifier, past zero if need be: one script call per hash slot, each key's
     * charge atomic (see each algorithm's charge section in decide/ for what past zero means). The requests' own costs are
     * ignored. Each slot's charge names its attempt: when its answer is lost, the returned future fails and the charge
     * is sent again until Redis answers (about ten seconds, see {@link GiveBacks}), applied once whatever reached
     * Redis.
     */
    @Override
    public CompletableFuture<Void> chargeAsync(List<LimitRequest> requests, long units) {
        return this.units.chargeAsync(requests, units);
    }

    /**
     * A waiting call's decision (see {@link SlotHolder}): a call of plain sliding windows with staggered advice, in one
     * hash slot, holds the slot it is advised when refused, if that falls within {@code within}; any other is decided
     * as {@link #tryAcquire} decides it.
     */
    @Override
    public Held hold(List<LimitRequest> requests, Duration within) {
        if (!HeldSlots.holdable(requests)) {
            return Held.none(tryAcquire(requests));
        }
        return held.hold(requests, within);
    }

    @Override
    public CompletionStage<Held> holdAsync(List<LimitRequest> requests, Duration within) {
        if (!HeldSlots.holdable(requests)) {
            return tryAcquireAsync(requests).thenApply(Held::none);
        }
        return held.holdAsync(requests, within);
    }

    /**
     * Tests only: decisions from now on run {@code scripts}, assembled with a test's clock piece, and send
     * {@code clockArgument} first in each script call for that piece to read; Redis's time then reads as
     * {@code redisMs}, which the periods of calendar quotas are named around. A test can so put Redis's clock just
     * before a month's end, a daylight saving change or February 29th and move it across, never waiting for real time;
     * the keys' expiries run on Redis's real clock, for the same lengths. The refusals kept in the JVM are forgotten:
     * they were timed on the clock the test moved. With the production scripts and no argument, Redis's own clock
     * decides again.
     */
    void decideOnClock(DecisionScripts scripts, @Nullable String clockArgument, long redisMs) {
        decider.decideOnClock(scripts, clockArgument, redisMs);
    }

    /**
     * Forgets the counts (and penalty box), and on every instance the local refusals, of one identifier under one
     * limit. The other instances hear it through Redis pub/sub on the same client; this returns once each that heard
     * it has forgotten (within the guard's budget), so that the next call on any instance is decided afresh.
     */
    @Override
    public void reset(RateLimit limit, ClientIdentifier identifier) {
        String tag = RedisKeys.tag(identifier);
        String key = keys.rateLimitKey(limit, tag);
        if (limit.leased()) {
            executor.delete(leases.keyOf(LimitRequest.of(limit, identifier, 0)));
            leases.forget(limit, identifier);
            return;
        }
        executor.delete(key);
        kept.heard(key);
        if (!limit.penalty().isZero()) {
            executor.delete(RedisKeys.penaltyKey(key)); // out of the box too
        }
        if (limit.algorithm() == Algorithm.SLIDING_WINDOW && limit.plan() == null) {
            String pattern = keys.severalWindowsPattern(limit.name(), tag);
            guard.call(() -> redisson.getKeys().deleteByPatternAsync(pattern));
        }
        kept.forgetAndWait(key);
    }

    @Override
    public boolean liftPenalty(RateLimit limit, ClientIdentifier identifier) {
        String key = keys.rateLimitKey(limit, RedisKeys.tag(identifier));
        boolean lifted = executor.delete(RedisKeys.penaltyKey(key));
        kept.forgetAndWait(key);
        return lifted;
    }

    /** Scans every master for penalty boxes (a few at a time), then reads their time left in one batch. */
    @Override
    public List<Penalty> penalties(int max) {
        List<String> found = RedisKeys.scan(redisson, keys.penaltyPattern(), max);
        if (found.isEmpty()) {
            return List.of();
        }
        org.redisson.api.RBatch batch = redisson.createBatch();
        found.forEach(key -> batch.getBucket(key, StringCodec.INSTANCE).remainTimeToLiveAsync());
        List<?> lefts = guard.call(batch::executeAsync).getResponses();
        List<Penalty> penalties = new ArrayList<>(found.size());
        for (int i = 0; i < found.size(); i++) {
            long left = ScriptExecutor.number(lefts.get(i));
            Penalty penalty = RedisKeys.penaltyOf(found.get(i), Duration.ofMillis(left));
            if (left > 0 && penalty != null) {
                penalties.add(penalty);
            }
        }
        return penalties;
    }

    @Override
    public CompletableFuture<Boolean> pauseAsync(RateLimit limit, ClientIdentifier identifier, Duration duration) {
        if (limit.algorithm() != Algorithm.FIXED_WINDOW || limit.limit() != 1) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "a pause is a fixed window of limit 1, but '" + limit.name() + "' is " + limit));
        }
        long ms = Math.max(1, duration.toMillis());
        String key = keys.rateLimitKey(limit, RedisKeys.tag(identifier));
        return guard.callAsync(() -> executor.run(PAUSE, List.of(key), new Object[] {ms}))
                .thenApply(reply -> ScriptExecutor.number(reply.get(0)) == 1);
    }

    /**
     * Forgets the refusals this instance serves in the JVM, and announces it so that every instance does (a test that
     * deleted the counts under the key prefix).
     */
    @Override
    public void forgetLocalState() {
        leases.giveBackAll();
        kept.allChangedAndWait();
    }
}
