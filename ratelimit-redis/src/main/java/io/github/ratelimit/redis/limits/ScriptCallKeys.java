package io.github.ratelimit.redis.limits;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.CalendarPeriod;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.redis.internal.RedisKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The keys of the script calls that one decision, credit or charge sends, one script call per hash slot: its distinct
 * keys in the order of the requests (the same counter asked for twice is counted once, enforced over shadow), grouped
 * per hash slot, with the sliding windows of one name and identifier counted in one key; what each script call is
 * given (keys, advice cursors, arguments); and, for a decision call one slot refused and another admitted, what an
 * admitting slot gives back. What a call sends, not what its reply means ({@link DecisionCall} reads that).
 */
@SuppressWarnings("NullAway") // every map here is read with the keys this class put in it
final class ScriptCallKeys {

    /** Requests of one call up to which identifiers are compared pair by pair, not hashed into a map. */
    private static final int SMALL_CALL = 16;

    /** Sliding windows of one name and identifier counted in one key, at most (the script checks the same). */
    static final int MAX_WINDOWS_IN_ONE_KEY = 16;

    private final RedisKeys keys;

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

    /** The distinct keys in order, with their identifiers' tags; {@code size} of them. */
    private final String[] keyAt;

    private final String[] tagAt;
    private int size;

    ScriptCallKeys(List<LimitRequest> requests, RedisKeys keys) {
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("at least one limit request is needed");
        }
        this.keys = keys;
        keyAt = new String[requests.size()];
        tagAt = new String[requests.size()];
        // an identifier usually comes with several limits: its tag (a SHA-256) is made once
        Map<ClientIdentifier, String> tags = requests.size() > SMALL_CALL ? new HashMap<>() : null;
        String[] tagOf = new String[requests.size()];
        for (int r = 0; r < requests.size(); r++) {
            LimitRequest request = requests.get(r);
            RateLimitScriptCodec.check(request.limit());
            String tag = tags != null
                    ? tags.computeIfAbsent(request.identifier(), RedisKeys::tag)
                    : tagOfEarlier(requests, tagOf, r);
            tagOf[r] = tag;
            String key = keys.rateLimitKey(request.limit(), tag);
            LimitRequest kept = byKey.putIfAbsent(key, request);
            if (kept == null) {
                keyAt[size] = key;
                tagAt[size++] = tag;
            } else if (kept.shadow() && !request.shadow()) {
                byKey.put(key, request); // the same counter asked for twice: enforced wins over shadow
            }
        }
    }

    /**
     * Groups the keys per hash slot ({@code cluster}; else all in one), and sliding windows of one name and
     * identifier into one key. Left undone for a call refused in the JVM, which sends nothing.
     */
    ScriptCallKeys plan(boolean cluster) {
        String[] severalAt = size > 1 ? findSeveralWindows() : null;
        for (int i = 0; i < size; i++) {
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
        return this;
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
     * staggered, not a plan's, without a penalty or a share of a budget), are counted in one key: one header read and
     * one ring written instead of one per window. The windows' own keys stay the call's keys for everything else (local
     * refusals, outcomes, resets).
     */
    private String @Nullable [] findSeveralWindows() {
        String[] severalAt = null;
        int n = 0;
        int[] candidates = new int[size];
        LimitRequest[] requests = new LimitRequest[size];
        for (int k = 0; k < size; k++) {
            LimitRequest request = byKey.get(keyAt[k]);
            if (request.limit().algorithm() == Algorithm.SLIDING_WINDOW
                    && request.limit().plan() == null
                    && request.limit().penalty().isZero()
                    && request.limit().ceiling() == request.limit().limit()
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
     * The script's arguments for the keys of one slot: their number, then a spec per key (see decide/spec.lua), for a
     * key of several windows {@code 4, cost} and a limit and a window per window.
     */
    List<String> arguments(List<String> scriptKeys, RateLimitScriptCodec codec, long redisNowMs) {
        return arguments(scriptKeys, codec, redisNowMs, 0);
    }

    /** The same for a call that may hold a slot up to {@code holdWithinMs} ahead when refused (0: it may not). */
    List<String> arguments(List<String> scriptKeys, RateLimitScriptCodec codec, long redisNowMs, long holdWithinMs) {
        List<String> args = new ArrayList<>(1 + scriptKeys.size());
        args.add(Integer.toString(scriptKeys.size()));
        for (String key : scriptKeys) {
            List<String> windows = severalWindows.get(key);
            if (windows == null) {
                args.add(codec.spec(byKey.get(key), redisNowMs, holdWithinMs));
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

    /**
     * The credit script's arguments for the keys of one slot (see decide/units.lua, credit): the marker's life, the units,
     * then per key its algorithm, limit and window; a calendar quota's the periods around {@code redisNowMs}; a key of
     * several windows {@code 4} and its windows.
     */
    Object[] creditArguments(List<String> scriptKeys, long markerMs, long units, long redisNowMs) {
        Object[] args = new Object[scriptKeys.size() + 2];
        args[0] = markerMs;
        args[1] = units;
        for (int i = 0; i < scriptKeys.size(); i++) {
            String key = scriptKeys.get(i);
            List<String> windows = severalWindows.get(key);
            StringBuilder spec;
            if (windows != null) {
                spec = new StringBuilder("4");
                for (String window : windows) {
                    spec.append(',').append(byKey.get(window).limit().windowMs());
                }
            } else {
                RateLimit limit = byKey.get(key).limit();
                CalendarPeriod period = limit.period();
                if (period == null) {
                    spec = new StringBuilder()
                            .append(RateLimitScriptCodec.algorithmCode(limit))
                            .append(',')
                            .append(limit.limit())
                            .append(',')
                            .append(limit.windowMs());
                } else {
                    spec = new StringBuilder("5,").append(limit.limit()).append(",0");
                    for (long start : period.boundsAround(java.time.Instant.ofEpochMilli(redisNowMs))) {
                        spec.append(',').append(start);
                    }
                }
            }
            args[i + 2] = spec.toString();
        }
        return args;
    }

    /**
     * One slot's keys for a charge or a credit: the marker of its attempt (in the slot), then the keys, so that one sent
     * again after its answer was lost counts once.
     */
    static List<Object> marked(List<String> ofSlot, String attempt) {
        List<Object> slotKeys = new ArrayList<>(ofSlot.size() + 1);
        slotKeys.add(RedisKeys.chargeMarker(ofSlot.get(0), attempt));
        slotKeys.addAll(ofSlot);
        return slotKeys;
    }

    /**
     * The charge script's arguments for the keys of one slot (see decide/units.lua, charge): the marker's life, then per
     * key its algorithm, limit, window and the units; a key of several windows {@code 4}, their number, 0, the units,
     * then each window's limit and window.
     */
    Object[] chargeArguments(List<String> scriptKeys, long markerMs, long units) {
        List<Object> args = new ArrayList<>(1 + 4 * scriptKeys.size());
        args.add(markerMs);
        for (String key : scriptKeys) {
            List<String> windows = severalWindows.get(key);
            if (windows == null) {
                RateLimit limit = byKey.get(key).limit();
                args.addAll(List.of(RateLimitScriptCodec.algorithmCode(limit), limit.limit(), limit.windowMs(), units));
                continue;
            }
            args.addAll(List.of(4, windows.size(), 0, units));
            for (String window : windows) {
                RateLimit limit = byKey.get(window).limit();
                args.add(limit.limit());
                args.add(limit.windowMs());
            }
        }
        return args.toArray();
    }

    /** Whether a request counts per calendar period (its decision names the periods around Redis's clock). */
    boolean countsPerPeriod() {
        for (LimitRequest request : byKey.values()) {
            if (request.limit().period() != null) {
                return true;
            }
        }
        return false;
    }

    /** The key of several windows that counts {@code key}, or null (a call has few such keys). */
    @Nullable
    String severalOf(String key) {
        for (Map.Entry<String, List<String>> several : severalWindows.entrySet()) {
            if (several.getValue().contains(key)) {
                return several.getKey();
            }
        }
        return null;
    }

    /**
     * The keys the script is given: each limit key, followed by its advice cursor when its advice is staggered, then by
     * its penalty box when it has a penalty (a key of several windows has neither).
     */
    List<String> withCursors(List<String> group) {
        boolean more = false;
        for (String key : group) {
            more |= staggered(byKey.get(key)) || penalized(byKey.get(key));
        }
        if (!more) {
            return group;
        }
        List<String> keys = new ArrayList<>(group.size() * 2);
        for (String key : group) {
            keys.add(key);
            if (staggered(byKey.get(key))) {
                keys.add(RedisKeys.adviceCursor(key));
            }
            if (penalized(byKey.get(key))) {
                keys.add(RedisKeys.penaltyKey(key));
            }
        }
        return keys;
    }

    private static boolean staggered(LimitRequest request) {
        return request != null && request.staggered();
    }

    private static boolean penalized(LimitRequest request) {
        return request != null && !request.limit().penalty().isZero();
    }

    /** What one admitting slot gives back: the keys that took their cost, or null when none did. */
    @Nullable
    GiveBack giveBack(List<String> group, long[] reply, String callId) {
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
        args.set(1, Math.min(longest, SlotGiveBacks.GIVE_BACK_MARKER_MS));
        backKeys.add(0, RedisKeys.giveBackMarker((String) backKeys.get(0), callId));
        return new GiveBack(backKeys, args.stream().map(String::valueOf).toArray(), windowKeys);
    }

    /**
     * One slot's give-back of one call: its marker and script keys, the take's receipts, and the keys of the windows
     * given back (what local refusals are keyed by).
     */
    record GiveBack(List<Object> keys, Object[] args, List<String> windowKeys) {}
}
