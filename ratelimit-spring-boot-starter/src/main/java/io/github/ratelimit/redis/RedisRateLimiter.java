package io.github.ratelimit.redis;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimiter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.redisson.api.RedissonClient;

/**
 * Decides all requests of one call in a single Lua script call: one network round trip, atomic, time taken
 * from the Redis server.
 */
public final class RedisRateLimiter implements RateLimiter {

    private static final LuaScript SCRIPT = LuaScript.load("ratelimit");

    private final ScriptExecutor executor;
    private final RedisKeys keys;

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     */
    public RedisRateLimiter(RedissonClient redisson, String keyPrefix) {
        this(redisson, keyPrefix, RedisGuard.defaults());
    }

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     * @param guard the latency budget and circuit breaker, shared by everything that uses this Redis
     */
    public RedisRateLimiter(RedissonClient redisson, String keyPrefix, RedisGuard guard) {
        this.executor = new ScriptExecutor(redisson, guard);
        this.keys = new RedisKeys(keyPrefix);
    }

    @Override
    public Decision tryAcquire(List<LimitRequest> requests) {
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("at least one limit request is needed");
        }
        Map<String, LimitRequest> byKey = new LinkedHashMap<>();
        for (LimitRequest request : requests) {
            // the same counter asked for twice is counted once; enforced wins over shadow
            byKey.merge(
                    keys.rateLimitKey(request.limit(), RedisKeys.tag(request.identifier())),
                    request,
                    (first, second) -> first.shadow() && !second.shadow() ? second : first);
        }
        List<Object> keyList = new ArrayList<>(byKey.keySet());
        Object[] args = new Object[keyList.size() * 5];
        int i = 0;
        for (LimitRequest request : byKey.values()) {
            args[i++] = Integer.toString(algorithmCode(request));
            args[i++] = Long.toString(request.limit().limit());
            args[i++] = Long.toString(request.limit().windowMs());
            args[i++] = Long.toString(request.cost());
            args[i++] = request.shadow() ? "1" : "0";
        }
        List<Object> reply = executor.call(SCRIPT, keyList, args);
        return toDecision(new ArrayList<>(byKey.values()), reply);
    }

    private static Decision toDecision(List<LimitRequest> requests, List<Object> reply) {
        if (reply == null || reply.size() != 2 + 4 * requests.size()) {
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
                    Duration.ofMillis(Math.max(0, ScriptExecutor.number(reply.get(base + 3))))));
        }
        return new Decision(admitted, outcomes, decidedAt);
    }

    private static int algorithmCode(LimitRequest request) {
        return switch (request.limit().algorithm()) {
            case SLIDING_WINDOW -> 1;
            case FIXED_WINDOW -> 2;
            case TOKEN_BUCKET -> 3;
        };
    }
}
