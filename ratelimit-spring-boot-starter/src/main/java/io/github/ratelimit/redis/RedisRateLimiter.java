package io.github.ratelimit.redis;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RTopic;
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
public final class RedisRateLimiter implements RateLimiter {

    static final LuaScript SCRIPT = LuaScript.load("ratelimit", "ring");
    static final LuaScript GIVE_BACK = LuaScript.load("ratelimit_giveback", "ring");

    /** How long a give-back's marker keeps a repeated give-back of the same call from counting twice, at most. */
    static final long GIVE_BACK_MARKER_MS = 10_000;

    private final ScriptExecutor executor;
    private final ScriptBatcher batcher;
    private final RedisGuard guard;
    private final RedisKeys keys;
    private final boolean cluster;
    private final int horizonWindows;
    private final LocalRefusals localRefusals;
    private final RTopic resets;
    private final AtomicBoolean subscribing = new AtomicBoolean();
    /** Give-backs are told apart by this limiter's random 64 bits and a counter (unique, made without blocking). */
    private final long callPrefix = new SecureRandom().nextLong();

    private final AtomicLong callIds = new AtomicLong();
    private volatile boolean resetsHeard;

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
                    "ratelimit.local-refusals.max-entries must not be negative, but was " + localRefusals);
        }
        if (horizonWindows < 1) {
            throw new IllegalArgumentException(
                    "ratelimit.retry-advice.horizon-windows must be at least 1, but was " + horizonWindows);
        }
        this.horizonWindows = horizonWindows;
        this.executor = new ScriptExecutor(redisson, guard);
        this.batcher = new ScriptBatcher(executor, SCRIPT);
        this.guard = guard;
        this.keys = new RedisKeys(keyPrefix);
        this.cluster = redisson.getConfig().isClusterConfig();
        this.localRefusals = localRefusals == 0 ? null : new LocalRefusals(localRefusals);
        this.resets = redisson.getTopic(keys.resetChannel(), StringCodec.INSTANCE);
    }

    @Override
    public Decision tryAcquire(List<LimitRequest> requests) {
        Call call = new Call(requests);
        return call.local != null ? call.local : call.decide(guard.call(call::send));
    }

    /** The same decision without waiting: one script call per hash slot, the budget kept by a timer. */
    @Override
    public CompletableFuture<Decision> tryAcquireAsync(List<LimitRequest> requests) {
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

        /** The same counter asked for twice is counted once; enforced wins over shadow. */
        final Map<String, LimitRequest> byKey = new LinkedHashMap<>();

        /** One script call per hash slot: a single Redis has one slot space, so one call decides everything. */
        final Map<Integer, List<String>> groups = new LinkedHashMap<>();

        final Decision local;
        final long sent;
        final long resetsWhenSent;

        Call(List<LimitRequest> requests) {
            if (requests.isEmpty()) {
                throw new IllegalArgumentException("at least one limit request is needed");
            }
            Map<String, Integer> slotOfKey = new LinkedHashMap<>();
            for (LimitRequest request : requests) {
                String tag = RedisKeys.tag(request.identifier());
                String key = keys.rateLimitKey(request.limit(), tag);
                byKey.merge(key, request, (first, second) -> first.shadow() && !second.shadow() ? second : first);
                slotOfKey.put(key, cluster ? RedisKeys.slot(tag) : 0);
            }
            local = localRefusals == null ? null : localRefusals.refuse(byKey, LocalRefusals.now());
            sent = localRefusals == null ? 0 : LocalRefusals.now();
            resetsWhenSent = localRefusals == null ? 0 : localRefusals.resetsHeard();
            slotOfKey.forEach((key, slot) ->
                    groups.computeIfAbsent(slot, s -> new ArrayList<>()).add(key));
        }

        CompletionStage<List<List<Object>>> send() {
            List<CompletableFuture<List<Object>>> parts = new ArrayList<>(groups.size());
            groups.forEach((slot, group) ->
                    parts.add(batcher.submit(slot, withCursors(group, byKey), arguments(group, byKey))));
            CompletableFuture<List<List<Object>>> replies = ScriptBatcher.allOf(parts);
            if (groups.size() == 1) {
                return replies;
            }
            long started = RedisGuard.startOfCall();
            return replies.thenCompose(decided -> giveBackWhereTaken(decided, started));
        }

        /**
         * A call refused in one slot and admitted in another: the admitting slots give back what they took. The
         * decision waits for that until shortly before the budget ends, never longer (a refusal stays a refusal
         * whatever Redis does then); a give-back that fails is sent once more (it is idempotent).
         */
        private CompletionStage<List<List<Object>>> giveBackWhereTaken(List<List<Object>> replies, long started) {
            List<CompletableFuture<Object>> backs = new ArrayList<>();
            String callId = Long.toHexString(callPrefix) + '.' + Long.toHexString(callIds.incrementAndGet());
            int g = 0;
            boolean refused = false;
            for (List<Object> reply : replies) {
                refused |= ScriptExecutor.number(reply.get(0)) != 1;
            }
            for (List<String> group : groups.values()) {
                List<Object> reply = replies.get(g++);
                if (refused && ScriptExecutor.number(reply.get(0)) == 1) {
                    GiveBack back = giveBack(group, reply, callId);
                    if (back != null) {
                        backs.add(sendGiveBack(back).exceptionallyCompose(first -> sendGiveBack(back)));
                    }
                }
            }
            if (backs.isEmpty()) {
                return CompletableFuture.completedFuture(replies);
            }
            return RedisGuard.untilNearlyOver(
                    guard, started, CompletableFuture.allOf(backs.toArray(CompletableFuture[]::new)), replies);
        }

        /** What one admitting slot gives back: the keys that took their cost, or null when none did. */
        private GiveBack giveBack(List<String> group, List<Object> reply, String callId) {
            List<Object> backKeys = new ArrayList<>();
            List<Object> args = new ArrayList<>();
            args.add(ScriptExecutor.number(reply.get(1)));
            args.add(0L); // the marker's lifetime, below
            long longest = 1;
            for (int i = 0; i < group.size(); i++) {
                LimitRequest request = byKey.get(group.get(i));
                boolean took = ScriptExecutor.number(reply.get(2 + 4 * i)) == 1 && !request.checkOnly();
                if (!took || request.cost() == 0) {
                    continue;
                }
                backKeys.add(group.get(i));
                args.add(algorithmCode(request));
                args.add(request.limit().limit());
                args.add(request.limit().windowMs());
                args.add(request.cost());
                args.add(ScriptExecutor.number(reply.get(2 + 4 * i + 2)));
                longest = Math.max(longest, request.limit().windowMs());
            }
            if (backKeys.isEmpty()) {
                return null;
            }
            args.set(1, Math.min(longest, GIVE_BACK_MARKER_MS));
            backKeys.add(0, RedisKeys.giveBackMarker((String) backKeys.get(0), callId));
            return new GiveBack(backKeys, args.stream().map(String::valueOf).toArray());
        }

        Decision decide(List<List<Object>> replies) {
            boolean admitted = true;
            Instant decidedAt = Instant.EPOCH;
            Map<String, LimitOutcome> outcomes = new LinkedHashMap<>();
            int g = 0;
            List<Decision> parts = new ArrayList<>(groups.size());
            for (List<String> group : groups.values()) {
                Decision part = toDecision(group.stream().map(byKey::get).toList(), replies.get(g++));
                parts.add(part);
                admitted &= part.allowed();
                decidedAt = decidedAt.isAfter(part.decidedAt()) ? decidedAt : part.decidedAt();
            }
            g = 0;
            for (List<String> group : groups.values()) {
                Decision part = parts.get(g++);
                for (int i = 0; i < group.size(); i++) {
                    LimitOutcome outcome = part.outcomes().get(i);
                    outcomes.put(group.get(i), admitted || !part.allowed() ? outcome : givenBack(outcome));
                }
            }
            List<LimitOutcome> ordered = new ArrayList<>();
            byKey.keySet().forEach(key -> ordered.add(outcomes.get(key)));
            Decision decision = new Decision(admitted, ordered, decidedAt);
            if (!admitted && localRefusals != null) {
                rememberRefusal(decision, byKey, sent, resetsWhenSent);
            }
            return decision;
        }
    }

    /** One slot's give-back of one call: its marker and keys, and the take's receipts. */
    private record GiveBack(List<Object> keys, Object[] args) {}

    /** Sends one give-back script (within the budget of the call it belongs to, which waits for it). */
    private CompletableFuture<Object> sendGiveBack(GiveBack back) {
        return executor.run(GIVE_BACK, back.keys(), back.args())
                .toCompletableFuture()
                .thenApply(reply -> reply);
    }

    /**
     * Keeps the refusal for local answers, once this instance hears resets (so that a reset elsewhere can never leave
     * a stale local refusal behind); until then, starts listening.
     */
    private void rememberRefusal(Decision decision, Map<String, LimitRequest> byKey, long sent, long resetsWhenSent) {
        if (!resetsHeard) {
            if (subscribing.compareAndSet(false, true)) {
                resets.addListenerAsync(String.class, (channel, key) -> {
                            if (FORGET_ALL.equals(key)) {
                                localRefusals.forgetAll();
                            } else {
                                localRefusals.forget(key);
                            }
                        })
                        .whenComplete((id, error) -> {
                            resetsHeard = error == null;
                            subscribing.set(false);
                        });
            }
            return;
        }
        localRefusals.remember(decision, byKey, sent, resetsWhenSent);
    }

    /**
     * Forgets the counts, and on every instance the local refusals, of one identifier under one limit. The other
     * instances hear it through Redis pub/sub on the same client.
     */
    @Override
    public void reset(RateLimit limit, String identifier) {
        String key = keys.rateLimitKey(limit, RedisKeys.tag(identifier));
        executor.delete(key);
        if (localRefusals != null) {
            localRefusals.forget(key);
            guard.call(() -> resets.publishAsync(key));
        }
    }

    /**
     * Forgets the refusals this instance serves in the JVM, and announces it so that every instance does (a test that
     * deleted the counts under the key prefix).
     */
    @Override
    public void forgetLocalState() {
        if (localRefusals != null) {
            localRefusals.forgetAll();
            guard.call(() -> resets.publishAsync(FORGET_ALL));
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
                Math.min(request.limit().limit(), outcome.remaining() + request.cost()),
                outcome.resetAfter(),
                outcome.retryAfter(),
                outcome.adviceCapped());
    }

    /** The reset announcement that means every key (no key is a single {@code *}). */
    static final String FORGET_ALL = "*";

    /** The keys the script is given: each limit key, followed by its advice cursor when its advice is staggered. */
    private static List<String> withCursors(List<String> group, Map<String, LimitRequest> byKey) {
        boolean staggered = false;
        for (String key : group) {
            staggered |= byKey.get(key).staggered();
        }
        if (!staggered) {
            return group;
        }
        List<String> keys = new ArrayList<>(group.size() * 2);
        for (String key : group) {
            keys.add(key);
            if (byKey.get(key).staggered()) {
                keys.add(RedisKeys.adviceCursor(key));
            }
        }
        return keys;
    }

    /** The script's arguments for the keys of one call: their number, then six per key. */
    private List<String> arguments(List<String> group, Map<String, LimitRequest> byKey) {
        List<String> args = new ArrayList<>(1 + group.size() * 6);
        args.add(Integer.toString(group.size()));
        for (String key : group) {
            LimitRequest request = byKey.get(key);
            args.add(Integer.toString(algorithmCode(request)));
            args.add(Long.toString(request.limit().limit()));
            args.add(Long.toString(request.limit().windowMs()));
            args.add(Long.toString(request.cost()));
            args.add(Integer.toString(
                    (request.shadow() ? 1 : 0) + (request.staggered() ? 2 : 0) + (request.checkOnly() ? 4 : 0)));
            args.add(Long.toString(request.limit().windowMs() * horizonWindows));
        }
        return args;
    }

    private static Decision toDecision(List<LimitRequest> requests, List<Object> reply) {
        if (reply == null || reply.size() < 2 + 4 * requests.size()) {
            throw new IllegalStateException("Unexpected reply from the rate limit script: " + reply);
        }
        boolean admitted = ScriptExecutor.number(reply.get(0)) == 1;
        Instant decidedAt = Instant.ofEpochMilli(ScriptExecutor.number(reply.get(1)));
        List<LimitOutcome> outcomes = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            int base = 2 + 4 * i;
            outcomes.add(new LimitOutcome(
                    requests.get(i),
                    ScriptExecutor.number(reply.get(base)) == 1,
                    Math.max(0, ScriptExecutor.number(reply.get(base + 1))),
                    Duration.ofMillis(Math.max(0, ScriptExecutor.number(reply.get(base + 2)))),
                    Duration.ofMillis(Math.max(0, ScriptExecutor.number(reply.get(base + 3)))),
                    capped(reply, requests.size(), i)));
        }
        return new Decision(admitted, outcomes, decidedAt);
    }

    /** Whether the reply lists key {@code i} (from 0) among those whose staggered advice reached the horizon. */
    private static boolean capped(List<Object> reply, int keys, int i) {
        for (int k = 2 + 4 * keys; k < reply.size(); k++) {
            if (ScriptExecutor.number(reply.get(k)) == i + 1) {
                return true;
            }
        }
        return false;
    }

    private static int algorithmCode(LimitRequest request) {
        return switch (request.limit().algorithm()) {
            case SLIDING_WINDOW -> 1;
            case FIXED_WINDOW -> 2;
            case TOKEN_BUCKET -> 3;
        };
    }
}
