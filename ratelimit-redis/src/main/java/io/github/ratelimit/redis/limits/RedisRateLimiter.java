package io.github.ratelimit.redis.limits;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.SlotHolder;
import io.github.ratelimit.core.Usage;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.AttemptIds;
import io.github.ratelimit.redis.internal.BudgetTimer;
import io.github.ratelimit.redis.internal.GiveBacks;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
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

    /**
     * The decision scripts, one per shape of call (DecisionScripts, from the pieces in decide/); a test that moves the
     * clock puts scripts of its own here ({@link #decideOnClock}).
     */
    private volatile DecisionScripts scripts = new DecisionScripts();

    static final LuaScript GIVE_BACK = DecisionScripts.after("giveback").keptLoaded();

    /** Pauses a limit (ratelimit_pause.lua). */
    static final LuaScript PAUSE = LuaScript.load(RedisRateLimiter.class, "ratelimit_pause");

    /** Charges units after the fact, past zero if need be (decide/units.lua, charge). */
    static final LuaScript CHARGE = DecisionScripts.after("charge").keptLoaded();

    /** Grants units more for the current window or period (decide/units.lua, credit). */
    static final LuaScript CREDIT = DecisionScripts.after("credit").keptLoaded();

    /**
     * How long a charge's marker keeps a charge sent again from counting twice: beyond its resends (about ten seconds,
     * each within a budget), and short, since every charge leaves one.
     */
    static final long CHARGE_MARKER_MS = 20_000;

    /** How long a give-back's marker keeps a repeated give-back of the same call from counting twice, at most. */
    static final long GIVE_BACK_MARKER_MS = 10_000;

    private final ScriptExecutor executor;
    private final ScriptBatcher batcher;
    private final RedisGuard guard;
    private final RedisKeys keys;
    private final RateLimitScriptCodec codec;
    private final boolean cluster;
    private final int horizonWindows;
    private final @Nullable LocalRefusals localRefusals;
    private final ForgetAnnouncements resets;
    /** The leases of leased limits (see {@link RateLimit#withLease}), decided in the JVM while they last. */
    private final Leases leases;
    /** What an announced reset makes this instance forget, made once (asked on every refusal kept). */
    private final Function<String, CompletionStage<?>> onReset = this::forgetRefusals;

    /** Counts resets and credits heard here (of every key), so that a slot held can tell one came after it. */
    private final AtomicLong resetsHeard = new AtomicLong();

    /** The count of {@link #resetsHeard} at each key's last reset or credit heard, kept long enough for any hold. */
    private final Cache<String, Long> lastResetOf = Caffeine.newBuilder()
            .maximumSize(RedisKeys.MAX_CACHED_LIMITS)
            .expireAfterWrite(Duration.ofHours(1))
            .executor(Runnable::run) // see RedisKeys
            .build();

    /** Gives back a slot held by a waiting call whose caller gave up (decide/after.lua, release). */
    static final LuaScript RELEASE = DecisionScripts.after("release");

    private final RedissonClient redisson;
    /** Give-backs are told apart by this limiter's random 64 bits and a counter (unique, made without blocking). */
    private final long callPrefix = new SecureRandom().nextLong();

    private final AtomicLong callIds = new AtomicLong();
    private final AttemptIds attempts = new AttemptIds();

    /** The guess of Redis's clock around which a calendar quota's decision names its periods. */
    private final RedisClock redisClock = new RedisClock();

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
        this.horizonWindows = horizonWindows;
        this.redisson = redisson;
        this.executor = new ScriptExecutor(redisson, guard);
        this.batcher = new ScriptBatcher(executor, call -> scripts.forCall(call));
        this.guard = guard;
        this.keys = new RedisKeys(keyPrefix);
        this.codec = new RateLimitScriptCodec(horizonWindows);
        this.cluster = redisson.getConfig().isClusterConfig();
        this.localRefusals = localRefusals == 0 ? null : new LocalRefusals(localRefusals);
        this.resets = new ForgetAnnouncements(redisson, guard, keys.resetChannel());
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

    /**
     * Reads with the decision script at cost 0, which writes nothing for such a call: no listener is told and no
     * refusal kept in memory answers, so the counts are Redis's own.
     */
    @Override
    public Usage usage(List<LimitRequest> requests) {
        List<LimitRequest> reads = Usage.reads(requests);
        if (Leases.any(reads)) {
            return Usage.of(joined(leases.decide(reads, this::readAsync)));
        }
        Call call = new Call(reads, false);
        return Usage.of(call.decide(guard.call(call::send)));
    }

    @Override
    public CompletableFuture<Usage> usageAsync(List<LimitRequest> requests) {
        List<LimitRequest> reads;
        try {
            reads = Usage.reads(requests);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return (Leases.any(reads) ? leases.decide(reads, this::readAsync) : readAsync(reads)).thenApply(Usage::of);
    }

    /** Reads at cost 0 with the decision script, never answered by a refusal kept in memory. */
    private CompletableFuture<Decision> readAsync(List<LimitRequest> reads) {
        Call call;
        try {
            call = new Call(reads, false);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return guard.callAsync(call::send).thenApply(call::decide);
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
        if (Leases.any(requests)) {
            throw Leases.unsupported("a credit", requests);
        }
        if (units < 1) {
            throw new IllegalArgumentException(Messages.atLeast("units", 1, units));
        }
        CallKeys made = new CallKeys(Usage.reads(requests), keys).plan(cluster);
        long redisNow = 0;
        if (made.countsPerPeriod()) {
            redisNow = redisClock.known() ? redisClock.guess() : guard.call(executor::redisTimeMs);
        }
        String attempt = attempts.next();
        long granted = units;
        for (List<String> ofSlot : made.scriptKeys.values()) {
            List<Object> slotKeys = CallKeys.marked(ofSlot, attempt);
            Object[] args = made.creditArguments(ofSlot, CHARGE_MARKER_MS, units, redisNow);
            List<Object> reply;
            try {
                reply = executor.call(CREDIT, slotKeys, args);
            } catch (RedisUnavailableException e) {
                // the answer may be lost after the credit was applied: sent again, applied once
                GiveBacks.send(
                        events,
                        "credit",
                        () -> executor.callAsync(CREDIT, slotKeys, args),
                        again -> ScriptExecutor.number(again.get(0)) >= 0);
                throw e;
            }
            for (Object given : reply) {
                granted = Math.min(granted, Math.max(0, ScriptExecutor.number(given)));
            }
        }
        for (String key : made.byKey.keySet()) {
            heardReset(key);
        }
        if (localRefusals != null) {
            for (String key : made.byKey.keySet()) {
                localRefusals.forget(key);
                resets.announceAndWait(key);
            }
        }
        return granted;
    }

    private Decision tryAcquireNow(List<LimitRequest> requests) {
        if (Leases.any(requests)) {
            return joined(leases.decide(requests, this::tryAcquireNowAsync));
        }
        Call call = new Call(requests);
        return call.local != null ? call.local : call.decide(guard.call(call::send));
    }

    /** The same decision without waiting: one script call per hash slot, the budget kept by a timer. */
    @Override
    public CompletableFuture<Decision> tryAcquireAsync(List<LimitRequest> requests) {
        return RateLimitEvents.observeAsync(events.deciding(requests), () -> tryAcquireNowAsync(requests));
    }

    /**
     * A waiting call's decision (see {@link SlotHolder}): a call of plain sliding windows with staggered advice, in one
     * hash slot, holds the slot it is advised when refused, if that falls within {@code within}; any other is decided
     * as {@link #tryAcquire} decides it.
     */
    @Override
    public Held hold(List<LimitRequest> requests, Duration within) {
        if (!holdable(requests)) {
            return Held.none(tryAcquire(requests));
        }
        Call[] made = new Call[1];
        Decision decision = RateLimitEvents.observe(events.deciding(requests), () -> {
            Call call = new Call(requests, true, within.toMillis());
            made[0] = call;
            return call.local != null ? call.local : call.decide(guard.call(call::send));
        });
        return held(made[0], decision);
    }

    @Override
    public CompletionStage<Held> holdAsync(List<LimitRequest> requests, Duration within) {
        if (!holdable(requests)) {
            return tryAcquireAsync(requests).thenApply(Held::none);
        }
        Call call;
        try {
            call = new Call(requests, true, within.toMillis());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return RateLimitEvents.observeAsync(
                        events.deciding(requests),
                        () -> call.local != null
                                ? CompletableFuture.completedFuture(call.local)
                                : guard.callAsync(call::send).thenApply(call::decide))
                .thenApply(decision -> held(call, decision));
    }

    private static boolean holdable(List<LimitRequest> requests) {
        for (LimitRequest request : requests) {
            if (!RateLimitScriptCodec.canHold(request)) {
                return false;
            }
        }
        return !requests.isEmpty();
    }

    /** A decision's slot, if it holds one: stands until a reset or credit of one of its keys is heard. */
    private Held held(Call call, Decision decision) {
        if (!decision.allowed() || decision.startsIn().isZero()) {
            return Held.none(decision);
        }
        long heardWhenHeld = call.resetsHeardBefore; // a reset heard while the call was out comes after it
        if (localRefusals != null) {
            resets.listen(onReset); // resets elsewhere are heard from now on
        }
        List<String> slotKeys = List.copyOf(call.byKey.keySet());
        long at = decision.decidedAt().toEpochMilli();
        return Held.of(
                decision,
                () -> {
                    Long all = lastResetOf.getIfPresent(FORGET_ALL);
                    if (all != null && all > heardWhenHeld) {
                        return false;
                    }
                    for (String key : slotKeys) {
                        Long last = lastResetOf.getIfPresent(key);
                        if (last != null && last > heardWhenHeld) {
                            return false;
                        }
                    }
                    return true;
                },
                () -> giveUp(call, at));
    }

    /** Gives back the slot a call held at {@code at} (Redis ms): its caller gave up. Sent, not waited for. */
    private void giveUp(Call call, long at) {
        List<Object> keys = new ArrayList<>(call.byKey.size());
        List<Object> args = new ArrayList<>(1 + 2 * call.byKey.size());
        args.add(at);
        for (Map.Entry<String, LimitRequest> taken : call.byKey.entrySet()) {
            LimitRequest request = taken.getValue();
            if (!request.checkOnly() && request.cost() > 0) {
                keys.add(taken.getKey());
                args.add(request.limit().windowMs());
                args.add(request.cost());
            }
        }
        if (!keys.isEmpty()) {
            GiveBacks.send(events, "held-slot", () -> executor.callAsync(RELEASE, keys, args.toArray()), reply -> true);
        }
    }

    /** Counts a reset or credit of {@code key} ({@link #FORGET_ALL}: of every key) for the slots held. */
    private void heardReset(String key) {
        lastResetOf.put(key, resetsHeard.incrementAndGet());
    }

    private CompletableFuture<Decision> tryAcquireNowAsync(List<LimitRequest> requests) {
        if (Leases.any(requests)) {
            return leases.decide(requests, this::tryAcquireNowAsync);
        }
        Call call;
        try {
            call = new Call(requests);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return call.local != null
                ? CompletableFuture.completedFuture(call.local)
                : guard.callAsync(call::send).thenApply(call::decide);
    }

    /** One decision: its keys, grouped per hash slot, a local refusal if it has one, and what the reply means. */
    private final class Call {

        /** What the call sends: its keys, per slot. */
        final CallKeys callKeys;

        /** The distinct keys in order, with their requests. */
        final Map<String, LimitRequest> byKey;

        /** Each slot's keys in the order the script answers them. */
        final Map<Integer, List<String>> groups;

        final @Nullable Decision local;
        final long sent;

        /** The slots' replies in full, once read. */
        private @Nullable List<long[]> fullReplies;

        /** Each slot's requests in the order of its answers, once made. */
        private @Nullable List<List<LimitRequest>> requestsOfGroups;

        final long resetsWhenSent;

        /** How far ahead the call may hold a slot when refused (see {@link #hold}); 0: it may not. */
        final long holdWithinMs;

        /** The resets and credits heard here before the call was sent (see {@link #held}). */
        final long resetsHeardBefore = resetsHeard.get();

        Call(List<LimitRequest> requests) {
            this(requests, true);
        }

        Call(List<LimitRequest> requests, boolean refusedLocally) {
            this(requests, refusedLocally, 0);
        }

        /**
         * @param refusedLocally whether a refusal kept in memory may answer the call
         * @param holdWithinMs how far ahead the call may hold a slot when refused; 0: it may not
         */
        Call(List<LimitRequest> requests, boolean refusedLocally, long holdWithinMs) {
            CallKeys made = new CallKeys(requests, keys);
            byKey = made.byKey;
            long now = localRefusals == null ? 0 : LocalRefusals.now();
            local = localRefusals == null || !refusedLocally ? null : localRefusals.refuse(byKey, now);
            sent = now;
            resetsWhenSent = localRefusals == null ? 0 : localRefusals.resetsHeard();
            // refused in the JVM: nothing is sent, nothing planned
            callKeys = local != null ? made : made.plan(cluster);
            groups = callKeys.groups;
            // a slot is held in one script call, all or nothing: not across hash slots
            this.holdWithinMs = groups.size() == 1 ? holdWithinMs : 0;
        }

        CompletionStage<List<Object>> send() {
            if (!redisClock.known() && callKeys.countsPerPeriod()) {
                // no Redis time seen yet: a calendar quota's periods are named around Redis's, asked first (once)
                return executor.redisTimeMs().thenCompose(time -> {
                    redisClock.saw(time);
                    return sendNow();
                });
            }
            return sendNow();
        }

        private CompletionStage<List<Object>> sendNow() {
            List<CompletableFuture<Object>> parts = new ArrayList<>(groups.size());
            long redisNow = redisClock.known() ? redisClock.guess() : 0;
            callKeys.scriptKeys.forEach((slot, ofSlot) -> parts.add(batcher.submit(
                    slot, callKeys.withCursors(ofSlot), callKeys.arguments(ofSlot, codec, redisNow, holdWithinMs))));
            CompletableFuture<List<Object>> replies = ScriptBatcher.allOf(parts);
            if (groups.size() == 1) {
                return replies;
            }
            long started = BudgetTimer.startOfCall();
            return replies.thenCompose(decided -> giveBackWhereTaken(decided, started));
        }

        /**
         * A call refused in one slot and admitted in another: the admitting slots give back what they took. The
         * decision waits for that until shortly before the budget ends, never longer (a refusal stays a refusal
         * whatever Redis does then); a give-back that fails is sent once more (it is idempotent).
         */
        private CompletionStage<List<Object>> giveBackWhereTaken(List<Object> raw, long started) {
            List<CompletableFuture<Object>> backs = new ArrayList<>();
            String callId = Long.toHexString(callPrefix) + '.' + Long.toHexString(callIds.incrementAndGet());
            List<long[]> replies = read(raw);
            int g = 0;
            boolean refused = false;
            for (long[] reply : replies) {
                refused |= reply[0] != 1;
            }
            for (List<String> group : groups.values()) {
                long[] reply = replies.get(g++);
                if (refused && reply[0] == 1) {
                    CallKeys.GiveBack back = callKeys.giveBack(group, reply, callId);
                    if (back != null) {
                        backs.add(sendGiveBack(back)
                                .exceptionallyCompose(first -> sendGiveBack(back))
                                .whenComplete((given, failed) -> {
                                    if (failed != null) { // past this call's budget: sent again, counted, logged
                                        GiveBacks.send(
                                                events,
                                                "rate-limit",
                                                () -> sendGiveBack(back).thenApply(RedisRateLimiter::reply),
                                                again -> ScriptExecutor.number(again.get(0)) > 0);
                                    }
                                }));
                    }
                }
            }
            if (backs.isEmpty()) {
                return CompletableFuture.completedFuture(raw);
            }
            return BudgetTimer.untilNearlyOver(
                    guard.budget(), started, CompletableFuture.allOf(backs.toArray(CompletableFuture[]::new)), raw);
        }

        /** The replies of the slots in full, read once (a call given back reads them before it is decided). */
        private List<long[]> read(List<Object> raw) {
            if (fullReplies == null) {
                List<long[]> read = new ArrayList<>(raw.size());
                List<List<LimitRequest>> requests = new ArrayList<>(groups.size());
                int g = 0;
                for (List<String> group : groups.values()) {
                    List<LimitRequest> ofGroup = new ArrayList<>(group.size());
                    for (String key : group) {
                        ofGroup.add(byKey.get(key));
                    }
                    requests.add(ofGroup);
                    read.add(RateLimitScriptCodec.answers(raw.get(g++), ofGroup));
                }
                requestsOfGroups = requests;
                fullReplies = read;
            }
            return fullReplies;
        }

        Decision decide(List<Object> raw) {
            List<long[]> replies = read(raw);
            boolean admitted = true;
            Instant decidedAt = Instant.EPOCH;
            List<List<LimitRequest>> requestsOfGroups =
                    java.util.Objects.requireNonNull(this.requestsOfGroups); // set by read
            List<Decision> parts = new ArrayList<>(groups.size());
            for (int g = 0; g < replies.size(); g++) {
                Decision part = RateLimitScriptCodec.toDecision(requestsOfGroups.get(g), replies.get(g));
                parts.add(part);
                admitted &= part.allowed();
                decidedAt = decidedAt.isAfter(part.decidedAt()) ? decidedAt : part.decidedAt();
            }
            List<LimitOutcome> ordered;
            if (parts.size() == 1 && callKeys.severalWindows.isEmpty()) {
                ordered = parts.get(0).outcomes(); // one slot answers in the order of the requests
            } else {
                Map<String, LimitOutcome> outcomes = new HashMap<>();
                int g = 0;
                for (List<String> group : groups.values()) {
                    Decision part = parts.get(g++);
                    for (int i = 0; i < group.size(); i++) {
                        LimitOutcome outcome = part.outcomes().get(i);
                        outcomes.put(group.get(i), admitted || !part.allowed() ? outcome : givenBack(outcome));
                    }
                }
                ordered = new ArrayList<>(byKey.size());
                for (String key : byKey.keySet()) {
                    ordered.add(outcomes.get(key));
                }
            }
            Decision decision = new Decision(admitted, ordered, decidedAt);
            redisClock.saw(decidedAt.toEpochMilli() - decision.startsIn().toMillis()); // a slot held is ahead
            if (!admitted && localRefusals != null) {
                rememberRefusal(decision, byKey, sent, resetsWhenSent);
            }
            return decision;
        }
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
        this.scripts = scripts;
        batcher.clockArgument(clockArgument);
        redisClock.saw(redisMs);
        if (localRefusals != null) {
            localRefusals.forgetAll();
        }
    }

    /** A give-back script's reply, as the script executor gives it. */
    @SuppressWarnings("unchecked")
    private static List<Object> reply(Object reply) {
        return (List<Object>) reply;
    }

    /**
     * Sends one give-back script (within the budget of the call it belongs to, which waits for it). Once it made room,
     * refusals that other calls met while the units were taken may be stale: every instance forgets its local refusals
     * of those keys, as after a reset (a decision sent before that is not remembered).
     */
    private CompletableFuture<Object> sendGiveBack(CallKeys.GiveBack back) {
        return executor.run(GIVE_BACK, back.keys(), back.args())
                .toCompletableFuture()
                .thenApply(reply -> {
                    if (localRefusals != null && ScriptExecutor.number(reply.get(0)) > 0) {
                        for (String key : back.windowKeys()) {
                            localRefusals.forget(key);
                            resets.announce(key);
                        }
                    }
                    return reply;
                });
    }

    /**
     * Keeps the refusal for local answers, once this instance hears resets (so that a reset elsewhere can never leave
     * a stale local refusal behind); until then, starts listening.
     */
    private void rememberRefusal(Decision decision, Map<String, LimitRequest> byKey, long sent, long resetsWhenSent) {
        LocalRefusals refusals = localRefusals;
        if (refusals != null && resets.listen(onReset)) {
            refusals.remember(decision, byKey, sent, resetsWhenSent);
        }
    }

    /** Forgets the refusals kept of an announced key ({@link #FORGET_ALL}: of every key). */
    private CompletionStage<?> forgetRefusals(String key) {
        heardReset(key);
        LocalRefusals refusals = localRefusals;
        if (refusals != null) {
            if (FORGET_ALL.equals(key)) {
                refusals.forgetAll();
            } else {
                refusals.forget(key);
            }
        }
        return CompletableFuture.completedFuture(null);
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
        heardReset(key);
        if (!limit.penalty().isZero()) {
            executor.delete(RedisKeys.penaltyKey(key)); // out of the box too
        }
        if (limit.algorithm() == Algorithm.SLIDING_WINDOW && limit.plan() == null) {
            String pattern = keys.severalWindowsPattern(limit.name(), tag);
            guard.call(() -> redisson.getKeys().deleteByPatternAsync(pattern));
        }
        if (localRefusals != null) {
            localRefusals.forget(key);
            resets.announceAndWait(key);
        }
    }

    @Override
    public boolean liftPenalty(RateLimit limit, ClientIdentifier identifier) {
        String key = keys.rateLimitKey(limit, RedisKeys.tag(identifier));
        boolean lifted = executor.delete(RedisKeys.penaltyKey(key));
        if (localRefusals != null) {
            localRefusals.forget(key);
            resets.announceAndWait(key);
        }
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

    /**
     * Charges every request's limit and identifier, past zero if need be: one script call per hash slot, each key's
     * charge atomic (see each algorithm's charge section in decide/ for what past zero means). The requests' own costs are
     * ignored. Each slot's charge names its attempt: when its answer is lost, the returned future fails and the charge
     * is sent again until Redis answers (about ten seconds, see {@link GiveBacks}), applied once whatever reached
     * Redis.
     */
    @Override
    public CompletableFuture<Void> chargeAsync(List<LimitRequest> requests, long units) {
        if (units < 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(Messages.negative("units", units)));
        }
        if (Leases.any(requests)) {
            return CompletableFuture.failedFuture(Leases.unsupported("a charge after the call", requests));
        }
        if (units == 0 || requests.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        for (LimitRequest request : requests) {
            if (request.limit().period() != null) {
                return CompletableFuture.failedFuture(
                        new IllegalArgumentException("limit '" + request.limit().name() + "' counts per calendar "
                                + request.limit().period() + ", which is not charged after the call"));
            }
        }
        // keyed as a decision of these requests is: the windows of one name and identifier in one key
        CallKeys made;
        try {
            made = new CallKeys(requests, keys).plan(cluster);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e); // a limit Redis cannot count
        }
        String attempt = attempts.next();
        Map<List<Object>, Object[]> bySlot = new LinkedHashMap<>();
        for (List<String> ofSlot : made.scriptKeys.values()) {
            List<Object> slotKeys = CallKeys.marked(ofSlot, attempt);
            bySlot.put(slotKeys, made.chargeArguments(ofSlot, CHARGE_MARKER_MS, units));
        }
        List<CompletableFuture<?>> charges = new ArrayList<>(bySlot.size());
        bySlot.forEach((slotKeys, args) -> {
            charges.add(
                    guard.callAsync(() -> executor.run(CHARGE, slotKeys, args)).whenComplete((reply, error) -> {
                        if (Futures.cause(error) instanceof RedisUnavailableException) {
                            // the answer may be lost after the charge was applied: sent again, applied once
                            GiveBacks.send(
                                    events,
                                    "charge",
                                    () -> executor.callAsync(CHARGE, slotKeys, args),
                                    again -> ScriptExecutor.number(again.get(0)) >= 0);
                        }
                    }));
        });
        return CompletableFuture.allOf(charges.toArray(CompletableFuture[]::new));
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
        heardReset(FORGET_ALL);
        if (localRefusals != null) {
            localRefusals.forgetAll();
            resets.announceAndWait(FORGET_ALL);
        }
    }

    /** An outcome of a slot that admitted a call another slot refused: what it took was given back. */
    private static LimitOutcome givenBack(LimitOutcome outcome) {
        LimitRequest request = outcome.request();
        if (!outcome.allowed() || request.checkOnly()) {
            return outcome;
        }
        return new LimitOutcome(
                request,
                true,
                Math.min(request.limit().ceiling(), outcome.remaining() + request.cost()),
                outcome.resetAfter(),
                outcome.retryAfter(),
                outcome.adviceCapped());
    }

    /** The reset announcement that means every key (no key is a single {@code *}). */
    static final String FORGET_ALL = "*";
}
