package io.github.ratelimit.redis.limits;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Decides calls with the decision scripts: what every {@link DecisionCall} shares (the scripts of each shape, the
 * batcher that queues script calls per slot, the keys, the guard's budget, the guess of Redis's clock, the refusals
 * kept in the JVM, the give-backs across slots), and the call's way through them, blocking or not. A decision is one
 * script call per hash slot, time taken from the Redis server.
 */
final class Decider {

    final ScriptExecutor executor;
    final ScriptBatcher batcher;
    final RedisKeys keys;
    final RateLimitScriptCodec codec;
    final boolean cluster;
    final KeptRefusals kept;
    final SlotGiveBacks slotGiveBacks;
    private final RedisGuard guard;

    /** The guess of Redis's clock around which a calendar quota's decision names its periods. */
    final RedisClock redisClock = new RedisClock();

    /**
     * The decision scripts, one per shape of call (DecisionScripts, from the pieces in decide/); a test that moves the
     * clock puts scripts of its own here ({@link #decideOnClock}).
     */
    private volatile DecisionScripts scripts = new DecisionScripts();

    Decider(
            ScriptExecutor executor,
            RedisGuard guard,
            RedisKeys keys,
            RateLimitScriptCodec codec,
            boolean cluster,
            KeptRefusals kept,
            SlotGiveBacks slotGiveBacks) {
        this.executor = executor;
        this.batcher = new ScriptBatcher(executor, call -> scripts.forCall(call));
        this.guard = guard;
        this.keys = keys;
        this.codec = codec;
        this.cluster = cluster;
        this.kept = kept;
        this.slotGiveBacks = slotGiveBacks;
    }

    /** A call of {@code requests} that a refusal kept in the JVM may answer, which may not hold a slot. */
    DecisionCall call(List<LimitRequest> requests) {
        return new DecisionCall(this, requests, true, 0);
    }

    /** The decision, waiting at most the guard's budget; a refusal kept in the JVM answers without Redis. */
    Decision decide(DecisionCall call) {
        return call.local != null ? call.local : call.decide(guard.call(call::send));
    }

    /** The same decision without waiting: the budget is kept by a timer. */
    CompletableFuture<Decision> decideAsync(DecisionCall call) {
        return call.local != null
                ? CompletableFuture.completedFuture(call.local)
                : guard.callAsync(call::send).thenApply(call::decide);
    }

    /** A decision of {@code requests} without waiting; a call that cannot be made fails the future. */
    CompletableFuture<Decision> decideAsync(List<LimitRequest> requests) {
        DecisionCall call;
        try {
            call = call(requests);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return decideAsync(call);
    }

    /**
     * Reads at cost 0 with the decision script, which writes nothing for such a call: never answered by a refusal kept
     * in the JVM, so the counts are Redis's own.
     */
    Decision read(List<LimitRequest> reads) {
        DecisionCall call = new DecisionCall(this, reads, false, 0);
        return call.decide(guard.call(call::send));
    }

    /** The same read without waiting. */
    CompletableFuture<Decision> readAsync(List<LimitRequest> reads) {
        DecisionCall call;
        try {
            call = new DecisionCall(this, reads, false, 0);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return guard.callAsync(call::send).thenApply(call::decide);
    }

    /** See {@link RedisRateLimiter#decideOnClock}. */
    void decideOnClock(DecisionScripts scripts, @Nullable String clockArgument, long redisMs) {
        this.scripts = scripts;
        batcher.clockArgument(clockArgument);
        redisClock.saw(redisMs);
        kept.forgetHere();
    }
}
