package io.github.ratelimit.redis.limits;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.redis.internal.BudgetTimer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * One decision call: the keys of its requests grouped per hash slot, a refusal kept in the JVM if one answers it, the
 * script calls it sends (one per slot, each queued with others of its shape, see {@link ScriptBatcher}), and what
 * their replies mean. Made by the {@link Decider}, which holds what every call shares.
 */
final class DecisionCall {

    private final Decider decider;

    /** What the call sends: its keys, per slot. */
    final ScriptCallKeys callKeys;

    /** The distinct keys in order, with their requests. */
    final Map<String, LimitRequest> byKey;

    /** Each slot's keys in the order the script answers them. */
    final Map<Integer, List<String>> groups;

    /** A refusal kept in the JVM that answers the call, or null: Redis decides. */
    final @Nullable Decision local;

    /** The JVM's monotonic time the call was made at (for the refusals kept, see {@link KeptRefusals}). */
    private final long sent;

    /** The slots' replies in full, once read. */
    private @Nullable List<long[]> fullReplies;

    /** Each slot's requests in the order of its answers, once made. */
    private @Nullable List<List<LimitRequest>> requestsOfGroups;

    private final long resetsWhenSent;

    /** How far ahead the call may hold a slot when refused (see {@link HeldSlots}); 0: it may not. */
    final long holdWithinMs;

    /** The resets and credits heard here before the call was sent (see {@link HeldSlots}). */
    final long resetsHeardBefore;

    /**
     * @param refusedLocally whether a refusal kept in the JVM may answer the call
     * @param holdWithinMs how far ahead the call may hold a slot when refused; 0: it may not
     */
    DecisionCall(Decider decider, List<LimitRequest> requests, boolean refusedLocally, long holdWithinMs) {
        this.decider = decider;
        KeptRefusals kept = decider.kept;
        resetsHeardBefore = kept.resetsHeard();
        ScriptCallKeys made = new ScriptCallKeys(requests, decider.keys);
        byKey = made.byKey;
        long now = kept.now();
        local = refusedLocally ? kept.refuse(byKey, now) : null;
        sent = now;
        resetsWhenSent = kept.resetsWhenSent();
        // refused in the JVM: nothing is sent, nothing planned
        callKeys = local != null ? made : made.plan(decider.cluster);
        groups = callKeys.groups;
        // a slot is held in one script call, all or nothing: not across hash slots
        this.holdWithinMs = groups.size() == 1 ? holdWithinMs : 0;
    }

    /** Sends the call's script calls, one per hash slot; the replies, once every slot answered (and gave back). */
    CompletionStage<List<Object>> send() {
        RedisClock clock = decider.redisClock;
        if (!clock.known() && callKeys.countsPerPeriod()) {
            // no Redis time seen yet: a calendar quota's periods are named around Redis's, asked first (once)
            return decider.executor.redisTimeMs().thenCompose(time -> {
                clock.saw(time);
                return sendNow();
            });
        }
        return sendNow();
    }

    private CompletionStage<List<Object>> sendNow() {
        List<CompletableFuture<Object>> parts = new ArrayList<>(groups.size());
        long redisNow = decider.redisClock.known() ? decider.redisClock.guess() : 0;
        callKeys.scriptKeys.forEach((slot, ofSlot) -> parts.add(decider.batcher.submit(
                slot,
                callKeys.withCursors(ofSlot),
                callKeys.arguments(ofSlot, decider.codec, redisNow, holdWithinMs))));
        CompletableFuture<List<Object>> replies = ScriptBatcher.allOf(parts);
        if (groups.size() == 1) {
            return replies;
        }
        long started = BudgetTimer.startOfCall();
        return replies.thenCompose(decided -> decider.slotGiveBacks.whereTaken(this, decided, started));
    }

    /** The replies of the slots in full, read once (a call given back reads them before it is decided). */
    List<long[]> read(List<Object> raw) {
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

    /** The decision the slots' replies make: admitted only if every slot admitted it, outcomes in request order. */
    Decision decide(List<Object> raw) {
        List<long[]> replies = read(raw);
        boolean admitted = true;
        Instant decidedAt = Instant.EPOCH;
        List<List<LimitRequest>> requestsOfGroups = Objects.requireNonNull(this.requestsOfGroups); // set by read
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
        decider.redisClock.saw(decidedAt.toEpochMilli() - decision.startsIn().toMillis()); // a slot held is ahead
        if (!admitted) {
            decider.kept.remember(decision, byKey, sent, resetsWhenSent);
        }
        return decision;
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
}
