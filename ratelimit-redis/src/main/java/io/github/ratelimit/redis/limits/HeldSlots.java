package io.github.ratelimit.redis.limits;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.SlotHolder.Held;
import io.github.ratelimit.redis.internal.GiveBacks;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Waiting calls' decisions (see {@link io.github.ratelimit.core.SlotHolder}): a call of plain sliding windows with
 * staggered advice, in one hash slot, holds the slot it is advised when refused, if that falls within its wait (see
 * decide/decide.lua, hold). The slot stands until a reset or credit of one of its keys is heard; a caller that gives
 * up gives it back (decide/after.lua, release). Any other call is decided as a plain one.
 */
final class HeldSlots {

    /** Gives back a slot held by a waiting call whose caller gave up (decide/after.lua, release). */
    static final LuaScript RELEASE = DecisionScripts.after("release");

    private final Decider decider;
    private final ScriptExecutor executor;
    private final RateLimitEvents events;

    HeldSlots(Decider decider, RateLimitEvents events) {
        this.decider = decider;
        this.executor = decider.executor;
        this.events = events;
    }

    /** Whether every request of a call may hold a slot (then the call is decided here). */
    static boolean holdable(List<LimitRequest> requests) {
        for (LimitRequest request : requests) {
            if (!RateLimitScriptCodec.canHold(request)) {
                return false;
            }
        }
        return !requests.isEmpty();
    }

    /** A holdable call's decision and slot, waiting at most the guard's budget. */
    Held hold(List<LimitRequest> requests, Duration within) {
        DecisionCall[] made = new DecisionCall[1];
        Decision decision = RateLimitEvents.observe(events.deciding(requests), () -> {
            DecisionCall call = new DecisionCall(decider, requests, true, within.toMillis());
            made[0] = call;
            return decider.decide(call);
        });
        return held(made[0], decision);
    }

    /** The same without waiting. */
    CompletionStage<Held> holdAsync(List<LimitRequest> requests, Duration within) {
        DecisionCall call;
        try {
            call = new DecisionCall(decider, requests, true, within.toMillis());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return RateLimitEvents.observeAsync(events.deciding(requests), () -> decider.decideAsync(call))
                .thenApply(decision -> held(call, decision));
    }

    /** A decision's slot, if it holds one: stands until a reset or credit of one of its keys is heard. */
    private Held held(DecisionCall call, Decision decision) {
        if (!decision.allowed() || decision.startsIn().isZero()) {
            return Held.none(decision);
        }
        long heardWhenHeld = call.resetsHeardBefore; // a reset heard while the call was out comes after it
        KeptRefusals kept = decider.kept;
        kept.listen(); // resets elsewhere are heard from now on
        List<String> slotKeys = List.copyOf(call.byKey.keySet());
        long at = decision.decidedAt().toEpochMilli();
        return Held.of(decision, () -> !kept.resetSince(heardWhenHeld, slotKeys), () -> giveUp(call, at));
    }

    /** Gives back the slot a call held at {@code at} (Redis ms): its caller gave up. Sent, not waited for. */
    private void giveUp(DecisionCall call, long at) {
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
}
