package io.github.ratelimit.redis;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.OptionalOptions;
import org.redisson.client.codec.StringCodec;

/**
 * Checks that Redis answers within the budget and knows the starter's scripts, loading any it forgot. Used by
 * the health indicator; a failure throws {@code RedisUnavailableException}.
 */
public final class RedisHealthProbe {

    private static final List<LuaScript> SCRIPTS = List.of(
            LuaScript.load("ratelimit"),
            LuaScript.load("token_issue"),
            LuaScript.load("token_consume"),
            LuaScript.load("token_release"),
            LuaScript.load("lock_acquire"),
            LuaScript.load("lock_release"),
            LuaScript.load("lock_renew"));

    private final RScript script;
    private final RedisGuard guard;

    public RedisHealthProbe(RedissonClient redisson, RedisGuard guard) {
        this.guard = guard;
        this.script = redisson.getScript(OptionalOptions.defaults()
                .codec(StringCodec.INSTANCE)
                .timeout(guard.budget())
                .retryAttempts(0));
    }

    /** Details for the health endpoint: the scripts Redis had to be given again, and the breaker state. */
    public Map<String, Object> check() {
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
