package io.github.ratelimit.redis;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.Messages;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RateLimiter;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
public final class RedisRateLimiter implements RateLimiter, RateLimitEvents.Source {

    private final RateLimitEvents events = new RateLimitEvents();

    static final LuaScript SCRIPT = LuaScript.load("ratelimit", "ring");
    static final LuaScript GIVE_BACK = LuaScript.load("ratelimit_giveback", "ring");

    /** Pauses a limit (ratelimit_pause.lua). */
    static final LuaScript PAUSE = LuaScript.load("ratelimit_pause");

    /** Charges units after the fact, past zero if need be (ratelimit_charge.lua). */
    static final LuaScript CHARGE = LuaScript.load("ratelimit_charge", "ring");

    /** How long a give-back's marker keeps a repeated give-back of the same call from counting twice, at most. */
    static final long GIVE_BACK_MARKER_MS = 10_000;

    /** Requests of one call up to which identifiers are compared pair by pair, not hashed into a map. */
    private static final int SMALL_CALL = 16;

    /** Sliding windows of one name and identifier counted in one key, at most (the script checks the same). */
    static final int MAX_WINDOWS_IN_ONE_KEY = 16;

    private final ScriptExecutor executor;
    private final ScriptBatcher batcher;
    private final RedisGuard guard;
    private final RedisKeys keys;
    private final RateLimitScriptCodec codec;
    private final boolean cluster;
    private final int horizonWindows;
    private final LocalRefusals localRefusals;
    private final RTopic resets;
    private final RedissonClient redisson;
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
                    Messages.negative("ratelimit.local-refusals.max-entries", localRefusals));
        }
        if (horizonWindows < 1) {
            throw new IllegalArgumentException(
                    Messages.atLeast("ratelimit.retry-advice.horizon-windows", 1, horizonWindows));
        }
        this.horizonWindows = horizonWindows;
        this.redisson = redisson;
        this.executor = new ScriptExecutor(redisson, guard);
        this.batcher = new ScriptBatcher(executor, SCRIPT);
        this.guard = guard;
        this.keys = new RedisKeys(keyPrefix);
        this.codec = new RateLimitScriptCodec(horizonWindows);
        this.cluster = redisson.getConfig().isClusterConfig();
        this.localRefusals = localRefusals == 0 ? null : new LocalRefusals(localRefusals);
        this.resets = redisson.getTopic(keys.resetChannel(), StringCodec.INSTANCE);
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
        Call call = new Call(requests);
        return call.local != null ? call.local : call.decide(guard.call(call::send));
    }

    /** The same decision without waiting: one script call per hash slot, the budget kept by a timer. */
    @Override
    public CompletableFuture<Decision> tryAcquireAsync(List<LimitRequest> requests) {
        return RateLimitEvents.observeAsync(events.deciding(requests), () -> tryAcquireNowAsync(requests));
    }

    private CompletableFuture<Decision> tryAcquireNowAsync(List<LimitRequest> requests) {
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

        /**
         * One script call per hash slot: a single Redis has one slot space, so one call decides everything. Each slot's
         * keys in the order the script answers them (one answer per key, also for the windows of a key of several).
         */
        final Map<Integer, List<String>> groups = new LinkedHashMap<>();

        /** Sliding windows of one name and identifier counted in one key: that key, and its windows' keys by window. */
        Map<String, List<String>> severalWindows = Map.of();

        /** Each slot's keys as the script is given them: a key of several windows once, in place of its windows' keys. */
        final Map<Integer, List<String>> scriptKeys = new LinkedHashMap<>();

        final Decision local;
        final long sent;

        /** The slots' replies in full, once read. */
        private List<long[]> fullReplies;

        /** Each slot's requests in the order of its answers, once made. */
        private List<List<LimitRequest>> requestsOfGroups;

        final long resetsWhenSent;

        Call(List<LimitRequest> requests) {
            if (requests.isEmpty()) {
                throw new IllegalArgumentException("at least one limit request is needed");
            }
            // the distinct keys in order, with their identifiers' tags
            String[] keyAt = new String[requests.size()];
            String[] tagAt = new String[requests.size()];
            int n = 0;
            // an identifier usually comes with several limits: its tag (a SHA-256) is made once
            Map<ClientIdentifier, String> tags = requests.size() > SMALL_CALL ? new HashMap<>() : null;
            String[] tagOf = new String[requests.size()];
            for (int r = 0; r < requests.size(); r++) {
                LimitRequest request = requests.get(r);
                String tag = tags != null
                        ? tags.computeIfAbsent(request.identifier(), RedisKeys::tag)
                        : tagOfEarlier(requests, tagOf, r);
                tagOf[r] = tag;
                String key = keys.rateLimitKey(request.limit(), tag);
                LimitRequest kept = byKey.putIfAbsent(key, request);
                if (kept == null) {
                    keyAt[n] = key;
                    tagAt[n++] = tag;
                } else if (kept.shadow() && !request.shadow()) {
                    byKey.put(key, request); // the same counter asked for twice: enforced wins over shadow
                }
            }
            long now = localRefusals == null ? 0 : LocalRefusals.now();
            local = localRefusals == null ? null : localRefusals.refuse(byKey, now);
            sent = now;
            resetsWhenSent = localRefusals == null ? 0 : localRefusals.resetsHeard();
            if (local != null) {
                return; // refused in the JVM: nothing is sent
            }
            String[] severalAt = n > 1 ? findSeveralWindows(keyAt, tagAt, n) : null;
            for (int i = 0; i < n; i++) {
                int slot = cluster ? RedisKeys.slot(tagAt[i]) : 0;
                // both made at once, so that they list the slots in the same order
                List<String> group = groups.computeIfAbsent(slot, s -> new ArrayList<>());
                List<String> ofSlot = scriptKeys.computeIfAbsent(slot, s -> new ArrayList<>());
                String several = severalAt == null ? null : severalAt[i];
                if (several == null) {
                    group.add(keyAt[i]);
                    ofSlot.add(keyAt[i]);
                } else if (severalWindows.get(several).get(0).equals(keyAt[i])) {
                    group.addAll(severalWindows.get(several)); // its windows answer one after another
                    ofSlot.add(several);
                }
            }
        }

        /** The tag of request {@code r}'s identifier: an earlier request's if it has the same identifier. */
        private static String tagOfEarlier(List<LimitRequest> requests, String[] tagOf, int r) {
            ClientIdentifier identifier = requests.get(r).identifier();
            for (int i = 0; i < r; i++) {
                if (requests.get(i).identifier().equals(identifier)) {
                    return tagOf[i];
                }
            }
            return RedisKeys.tag(identifier);
        }

        /**
         * Sliding windows of one limit name, identifier and cost, enforced (not shadow, not only checked, advice not
         * staggered, not a plan's), are counted in one key: one header read and one ring written instead of one per
         * window. The windows' own keys stay the call's keys for everything else (local refusals, outcomes, resets).
         */
        private String[] findSeveralWindows(String[] keyAt, String[] tagAt, int size) {
            String[] severalAt = null;
            int n = 0;
            int[] candidates = new int[size];
            LimitRequest[] requests = new LimitRequest[size];
            for (int k = 0; k < size; k++) {
                LimitRequest request = byKey.get(keyAt[k]);
                if (request.limit().algorithm() == Algorithm.SLIDING_WINDOW
                        && request.limit().plan() == null
                        && !request.shadow()
                        && !request.staggered()
                        && !request.checkOnly()) {
                    candidates[n] = k;
                    requests[n++] = request;
                }
            }
            // a call has few limits: pairs are compared rather than grouped through a map of made-up keys
            boolean[] taken = new boolean[n];
            for (int i = 0; i < n; i++) {
                if (taken[i]) {
                    continue;
                }
                LimitRequest first = requests[i];
                String tag = tagAt[candidates[i]];
                List<String> windows = null;
                List<RateLimit> limits = null;
                for (int j = i + 1; j < n; j++) {
                    LimitRequest other = requests[j];
                    if (!taken[j]
                            && other.cost() == first.cost()
                            && other.limit().name().equals(first.limit().name())
                            && tagAt[candidates[j]].equals(tag)) {
                        if (windows == null) {
                            windows = new ArrayList<>();
                            limits = new ArrayList<>();
                            windows.add(keyAt[candidates[i]]);
                            limits.add(first.limit());
                        }
                        // kept in order of window (insertion: a call has few windows)
                        int at = limits.size();
                        while (at > 0
                                && limits.get(at - 1)
                                                .window()
                                                .compareTo(other.limit().window())
                                        > 0) {
                            at--;
                        }
                        windows.add(at, keyAt[candidates[j]]);
                        limits.add(at, other.limit());
                        taken[j] = true;
                    }
                }
                if (windows == null || windows.size() > MAX_WINDOWS_IN_ONE_KEY) {
                    continue;
                }
                String several = keys.severalWindowsKey(first.limit().name(), tag, limits);
                if (severalWindows.isEmpty()) {
                    severalWindows = new LinkedHashMap<>();
                    severalAt = new String[size];
                }
                severalWindows.put(several, windows);
                severalAt[candidates[i]] = several;
                for (int j = i + 1; j < n; j++) {
                    if (windows.contains(keyAt[candidates[j]])) {
                        severalAt[candidates[j]] = several;
                    }
                }
            }
            return severalAt;
        }

        /**
         * The script's arguments for the keys of one slot: their number, then a spec per key (see ratelimit.lua), for a
         * key of several windows {@code 4, cost} and a limit and a window per window.
         */
        List<String> arguments(List<String> scriptKeys) {
            List<String> args = new ArrayList<>(1 + scriptKeys.size());
            args.add(Integer.toString(scriptKeys.size()));
            for (String key : scriptKeys) {
                List<String> windows = severalWindows.get(key);
                if (windows == null) {
                    args.add(codec.spec(byKey.get(key)));
                    continue;
                }
                StringBuilder spec =
                        new StringBuilder("4,").append(byKey.get(windows.get(0)).cost());
                for (String window : windows) {
                    spec.append(',').append(codec.windowSpec(byKey.get(window).limit()));
                }
                args.add(spec.toString());
            }
            return args;
        }

        /** The key of several windows that counts {@code key}, or null (a call has few such keys). */
        private String severalOf(String key) {
            for (Map.Entry<String, List<String>> several : severalWindows.entrySet()) {
                if (several.getValue().contains(key)) {
                    return several.getKey();
                }
            }
            return null;
        }

        CompletionStage<List<Object>> send() {
            List<CompletableFuture<Object>> parts = new ArrayList<>(groups.size());
            scriptKeys.forEach(
                    (slot, ofSlot) -> parts.add(batcher.submit(slot, withCursors(ofSlot, byKey), arguments(ofSlot))));
            CompletableFuture<List<Object>> replies = ScriptBatcher.allOf(parts);
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
                    GiveBack back = giveBack(group, reply, callId);
                    if (back != null) {
                        backs.add(sendGiveBack(back).exceptionallyCompose(first -> sendGiveBack(back)));
                    }
                }
            }
            if (backs.isEmpty()) {
                return CompletableFuture.completedFuture(raw);
            }
            return RedisGuard.untilNearlyOver(
                    guard, started, CompletableFuture.allOf(backs.toArray(CompletableFuture[]::new)), raw);
        }

        /** What one admitting slot gives back: the keys that took their cost, or null when none did. */
        private GiveBack giveBack(List<String> group, long[] reply, String callId) {
            List<Object> backKeys = new ArrayList<>();
            List<String> windowKeys = new ArrayList<>();
            List<Object> args = new ArrayList<>();
            args.add(reply[1]);
            args.add(0L); // the marker's lifetime, below
            long longest = 1;
            for (int i = 0; i < group.size(); ) {
                LimitRequest request = byKey.get(group.get(i));
                boolean took = reply[2 + 4 * i] == 1 && !request.checkOnly();
                String several = severalOf(group.get(i));
                List<String> windows = several == null ? List.of(group.get(i)) : severalWindows.get(several);
                if (took && request.cost() > 0) {
                    windowKeys.addAll(windows);
                }
                if (took && request.cost() > 0 && several != null) {
                    backKeys.add(several);
                    args.addAll(List.of(4, windows.size(), 0, request.cost(), 0));
                    for (String window : windows) {
                        args.add(byKey.get(window).limit().windowMs());
                        longest = Math.max(longest, byKey.get(window).limit().windowMs());
                    }
                } else if (took && request.cost() > 0) {
                    backKeys.add(group.get(i));
                    args.add(RateLimitScriptCodec.algorithmCode(request.limit()));
                    args.add(request.limit().limit());
                    args.add(request.limit().windowMs());
                    args.add(request.cost());
                    args.add(reply[2 + 4 * i + 2]);
                    longest = Math.max(longest, request.limit().windowMs());
                }
                i += windows.size();
            }
            if (backKeys.isEmpty()) {
                return null;
            }
            args.set(1, Math.min(longest, GIVE_BACK_MARKER_MS));
            backKeys.add(0, RedisKeys.giveBackMarker((String) backKeys.get(0), callId));
            return new GiveBack(backKeys, args.stream().map(String::valueOf).toArray(), windowKeys);
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
            List<Decision> parts = new ArrayList<>(groups.size());
            for (int g = 0; g < replies.size(); g++) {
                Decision part = RateLimitScriptCodec.toDecision(requestsOfGroups.get(g), replies.get(g));
                parts.add(part);
                admitted &= part.allowed();
                decidedAt = decidedAt.isAfter(part.decidedAt()) ? decidedAt : part.decidedAt();
            }
            List<LimitOutcome> ordered;
            if (parts.size() == 1 && severalWindows.isEmpty()) {
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
            if (!admitted && localRefusals != null) {
                rememberRefusal(decision, byKey, sent, resetsWhenSent);
            }
            return decision;
        }
    }

    /**
     * One slot's give-back of one call: its marker and script keys, the take's receipts, and the keys of the windows
     * given back (what local refusals are keyed by).
     */
    private record GiveBack(List<Object> keys, Object[] args, List<String> windowKeys) {}

    /**
     * Sends one give-back script (within the budget of the call it belongs to, which waits for it). Once it made room,
     * refusals that other calls met while the units were taken may be stale: every instance forgets its local refusals
     * of those keys, as after a reset (a decision sent before that is not remembered).
     */
    private CompletableFuture<Object> sendGiveBack(GiveBack back) {
        return executor.run(GIVE_BACK, back.keys(), back.args())
                .toCompletableFuture()
                .thenApply(reply -> {
                    if (localRefusals != null && ScriptExecutor.number(reply.get(0)) > 0) {
                        for (String key : back.windowKeys()) {
                            localRefusals.forget(key);
                            resets.publishAsync(key);
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
    public void reset(RateLimit limit, ClientIdentifier identifier) {
        String tag = RedisKeys.tag(identifier);
        String key = keys.rateLimitKey(limit, tag);
        executor.delete(key);
        if (limit.algorithm() == Algorithm.SLIDING_WINDOW && limit.plan() == null) {
            String pattern = keys.severalWindowsPattern(limit.name(), tag);
            guard.call(() -> redisson.getKeys().deleteByPatternAsync(pattern));
        }
        if (localRefusals != null) {
            localRefusals.forget(key);
            guard.call(() -> resets.publishAsync(key));
        }
    }

    /**
     * Charges every request's limit and identifier, past zero if need be: one script call per hash slot, each key's
     * charge atomic (see ratelimit_charge.lua for what past zero means per algorithm). The requests' own costs are
     * ignored.
     */
    @Override
    public CompletableFuture<Void> chargeAsync(List<LimitRequest> requests, long units) {
        if (units < 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(Messages.negative("units", units)));
        }
        if (units == 0 || requests.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        Map<Integer, List<Object>> keysBySlot = new LinkedHashMap<>();
        Map<Integer, List<Object>> argsBySlot = new LinkedHashMap<>();
        Set<String> seen = new java.util.HashSet<>();
        for (LimitRequest request : requests) {
            String tag = RedisKeys.tag(request.identifier());
            String key = keys.rateLimitKey(request.limit(), tag);
            if (!seen.add(key)) {
                continue; // the same limit and identifier is charged once
            }
            int slot = RedisKeys.slot(tag);
            keysBySlot.computeIfAbsent(slot, s -> new ArrayList<>()).add(key);
            List<Object> args = argsBySlot.computeIfAbsent(slot, s -> new ArrayList<>());
            args.add(RateLimitScriptCodec.algorithmCode(request.limit()));
            args.add(request.limit().limit());
            args.add(request.limit().windowMs());
            args.add(units);
        }
        List<CompletableFuture<?>> charges = new ArrayList<>(keysBySlot.size());
        keysBySlot.forEach((slot, slotKeys) -> charges.add(guard.callAsync(
                () -> executor.run(CHARGE, slotKeys, argsBySlot.get(slot).toArray()))));
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

    /**
     * The keys the script is given: each limit key, followed by its advice cursor when its advice is staggered (a key of
     * several windows never is).
     */
    private static List<String> withCursors(List<String> group, Map<String, LimitRequest> byKey) {
        boolean staggered = false;
        for (String key : group) {
            staggered |= staggered(byKey.get(key));
        }
        if (!staggered) {
            return group;
        }
        List<String> keys = new ArrayList<>(group.size() * 2);
        for (String key : group) {
            keys.add(key);
            if (staggered(byKey.get(key))) {
                keys.add(RedisKeys.adviceCursor(key));
            }
        }
        return keys;
    }

    private static boolean staggered(LimitRequest request) {
        return request != null && request.staggered();
    }
}
