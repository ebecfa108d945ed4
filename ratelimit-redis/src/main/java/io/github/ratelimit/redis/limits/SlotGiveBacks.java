package io.github.ratelimit.redis.limits;

import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.BudgetTimer;
import io.github.ratelimit.redis.internal.GiveBacks;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gives back across hash slots: a decision call whose keys fall into several slots of a Redis Cluster is decided by
 * one script call per slot, and when one slot refuses it while another admitted it, what the admitting slots took is
 * given back (decide/after.lua, giveback), so that a refused call consumes nothing on a cluster either. Each give-back
 * is named by the decision call and its slot, so a give-back sent again counts once.
 */
final class SlotGiveBacks {

    /** Gives back what one call took in one hash slot (decide/after.lua, giveback). */
    static final LuaScript GIVE_BACK = DecisionScripts.after("giveback").keptLoaded();

    /** How long a give-back's marker keeps a repeated give-back of the same call from counting twice, at most. */
    static final long GIVE_BACK_MARKER_MS = 10_000;

    private final ScriptExecutor executor;
    private final RedisGuard guard;
    private final RateLimitEvents events;
    private final KeptRefusals kept;

    /** Give-backs are told apart by this limiter's random 64 bits and a counter (unique, made without blocking). */
    private final long callPrefix = new SecureRandom().nextLong();

    private final AtomicLong callIds = new AtomicLong();

    SlotGiveBacks(ScriptExecutor executor, RedisGuard guard, RateLimitEvents events, KeptRefusals kept) {
        this.executor = executor;
        this.guard = guard;
        this.events = events;
        this.kept = kept;
    }

    /**
     * A decision call refused in one slot and admitted in another: the admitting slots give back what they took. The
     * decision waits for that until shortly before the budget ends, never longer (a refusal stays a refusal whatever
     * Redis does then); a give-back that fails is sent once more (it is idempotent), and past the call's budget again
     * until Redis answers, counted and logged.
     *
     * @param call the decision call, whose slots' replies {@code raw} are
     * @param started when the call's script calls were sent ({@link BudgetTimer#startOfCall})
     */
    CompletionStage<List<Object>> whereTaken(DecisionCall call, List<Object> raw, long started) {
        List<CompletableFuture<Object>> backs = new ArrayList<>();
        String callId = Long.toHexString(callPrefix) + '.' + Long.toHexString(callIds.incrementAndGet());
        List<long[]> replies = call.read(raw);
        boolean refused = false;
        for (long[] reply : replies) {
            refused |= reply[0] != 1;
        }
        int g = 0;
        for (List<String> group : call.groups.values()) {
            long[] reply = replies.get(g++);
            if (refused && reply[0] == 1) {
                ScriptCallKeys.GiveBack back = call.callKeys.giveBack(group, reply, callId);
                if (back != null) {
                    backs.add(
                            send(back).exceptionallyCompose(first -> send(back)).whenComplete((given, failed) -> {
                                if (failed != null) { // past this call's budget: sent again, counted, logged
                                    GiveBacks.send(
                                            events,
                                            "rate-limit",
                                            () -> send(back).thenApply(SlotGiveBacks::reply),
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

    /**
     * Sends one give-back script (within the budget of the call it belongs to, which waits for it). Once it made room,
     * refusals that other calls met while the units were taken may be stale: every instance forgets its local refusals
     * of those keys, as after a reset (a decision sent before that is not remembered).
     */
    private CompletableFuture<Object> send(ScriptCallKeys.GiveBack back) {
        return executor.run(GIVE_BACK, back.keys(), back.args())
                .toCompletableFuture()
                .thenApply(reply -> {
                    if (ScriptExecutor.number(reply.get(0)) > 0) {
                        for (String key : back.windowKeys()) {
                            kept.gaveBack(key);
                        }
                    }
                    return reply;
                });
    }

    /** A give-back script's reply, as the script executor gives it. */
    @SuppressWarnings("unchecked")
    private static List<Object> reply(Object reply) {
        return (List<Object>) reply;
    }
}
