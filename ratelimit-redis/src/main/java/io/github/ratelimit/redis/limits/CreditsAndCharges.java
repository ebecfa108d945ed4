package io.github.ratelimit.redis.limits;

import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.Usage;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.AttemptIds;
import io.github.ratelimit.redis.internal.GiveBacks;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Units changed after a decision: a credit grants units more for the current window or period (a bill paid, a
 * support ticket), a charge takes units after the call, past zero if need be (tokens a model answered with). One script
 * call per hash slot each (decide/units.lua), named by its attempt: an answer lost makes it be sent again until Redis
 * answers (about ten seconds, see {@link GiveBacks}), applied once whatever reached Redis.
 */
final class CreditsAndCharges {

    /** Charges units after the fact, past zero if need be (decide/units.lua, charge). */
    static final LuaScript CHARGE = DecisionScripts.after("charge").keptLoaded();

    /** Grants units more for the current window or period (decide/units.lua, credit). */
    static final LuaScript CREDIT = DecisionScripts.after("credit").keptLoaded();

    /**
     * How long a charge's marker keeps a charge sent again from counting twice: beyond its resends (about ten seconds,
     * each within a budget), and short, since every charge leaves one.
     */
    static final long CHARGE_MARKER_MS = 20_000;

    private final Decider decider;
    private final ScriptExecutor executor;
    private final RedisGuard guard;
    private final RateLimitEvents events;
    private final AttemptIds attempts = new AttemptIds();

    CreditsAndCharges(Decider decider, RedisGuard guard, RateLimitEvents events) {
        this.decider = decider;
        this.executor = decider.executor;
        this.guard = guard;
        this.events = events;
    }

    /**
     * One credit script call per hash slot (see decide/units.lua, credit), named by its attempt: an answer lost makes
     * the credit be sent again until Redis answers (about ten seconds), applied once. Then every instance forgets its
     * local refusals of the keys credited, as after a reset. Returns the units granted, the least of every key's.
     */
    long credit(List<LimitRequest> requests, long units) {
        if (Leases.any(requests)) {
            throw Leases.unsupported("a credit", requests);
        }
        if (units < 1) {
            throw new IllegalArgumentException(Messages.atLeast("units", 1, units));
        }
        ScriptCallKeys made = new ScriptCallKeys(Usage.reads(requests), decider.keys).plan(decider.cluster);
        long redisNow = 0;
        if (made.countsPerPeriod()) {
            RedisClock clock = decider.redisClock;
            redisNow = clock.known() ? clock.guess() : guard.call(executor::redisTimeMs);
        }
        String attempt = attempts.next();
        long granted = units;
        for (List<String> ofSlot : made.scriptKeys.values()) {
            List<Object> slotKeys = ScriptCallKeys.marked(ofSlot, attempt);
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
            decider.kept.changedAndWait(key);
        }
        return granted;
    }

    /**
     * Charges every request's limit and identifier, past zero if need be: one script call per hash slot, each key's
     * charge atomic (see each algorithm's charge section in decide/ for what past zero means). The requests' own costs
     * are ignored. Each slot's charge names its attempt: when its answer is lost, the returned future fails and the
     * charge is sent again until Redis answers (about ten seconds, see {@link GiveBacks}), applied once whatever
     * reached Redis.
     */
    CompletableFuture<Void> chargeAsync(List<LimitRequest> requests, long units) {
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
        ScriptCallKeys made;
        try {
            made = new ScriptCallKeys(requests, decider.keys).plan(decider.cluster);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e); // a limit Redis cannot count
        }
        String attempt = attempts.next();
        Map<List<Object>, Object[]> bySlot = new LinkedHashMap<>();
        for (List<String> ofSlot : made.scriptKeys.values()) {
            List<Object> slotKeys = ScriptCallKeys.marked(ofSlot, attempt);
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
}
