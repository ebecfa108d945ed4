package io.github.ratelimit.redis;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

/**
 * Checks that Redis answers within the budget and knows the starter's scripts, loading any it forgot. Used by
 * the health indicator through {@link RedisConnector#healthCheck()}; a failure throws {@code RedisUnavailableException}.
 */
final class RedisHealthProbe {

    private static final List<LuaScript> SCRIPTS = List.of(
            RedisRateLimiter.GIVE_BACK,
            RedisRateLimiter.CHARGE,
            RedisRateLimiter.CREDIT,
            RedisSingleUseTokens.ISSUE,
            RedisSingleUseTokens.CONSUME,
            RedisSingleUseTokens.RELEASE,
            RedisLockManager.ACQUIRE,
            RedisLockManager.RELEASE,
            RedisLockManager.RENEW);

    private final RScript script;
    private final RedisGuard guard;

    RedisHealthProbe(RedissonClient redisson, RedisGuard guard) {
        this.guard = guard;
        this.script = ScriptExecutor.boundedScript(redisson, guard);
    }

    /** Details for the health endpoint: the scripts Redis had to be given again, and the breaker state. */
    Map<String, Object> check() {
        String[] shas = SCRIPTS.stream().map(LuaScript::sha1).toArray(String[]::new);
        List<Boolean> loaded = guard.call(() -> script.scriptExistsAsync(shas));
        int reloaded = 0;
        for (int i = 0; i < SCRIPTS.size(); i++) {
            if (!Boolean.TRUE.equals(loaded.get(i))) {
                LuaScript missing = SCRIPTS.get(i);
                guard.call(() -> script.scriptLoadAsync(missing.source()).thenApply(sha -> sha));
                reloaded++;
            }
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("scripts", SCRIPTS.size());
        details.put("scriptsReloaded", reloaded);
        details.put("failures", guard.failures());
        return details;
    }
}
