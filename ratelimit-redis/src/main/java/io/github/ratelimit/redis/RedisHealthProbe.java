package io.github.ratelimit.redis;

import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

/**
 * Checks that Redis answers within the budget and knows the scripts the capabilities send by their SHA-1 (those they
 * registered with {@link LuaScript#keptLoaded}), loading any it forgot. Used by
 * the health indicator through {@link RedisConnector#health}; a failure throws {@code RedisUnavailableException}.
 */
final class RedisHealthProbe {

    static final int FAILED_CHECKS_FOR_DEGRADED = 3;

    private final RScript script;
    private final RedisGuard guard;
    private final AtomicInteger failedInARow = new AtomicInteger();

    RedisHealthProbe(RedissonClient redisson, RedisGuard guard) {
        this.guard = guard;
        this.script = ScriptExecutor.boundedScript(redisson, guard);
    }

    /** See {@link RedisConnector#health}. */
    Map<String, Object> report(String decisionsWithoutRedis) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("redis", guard.target());
        if (!guard.isConnected()) {
            details.put("degraded", true);
            details.put("decisions", decisionsWithoutRedis);
            String refused = guard.refusal();
            details.put("connected", refused != null); // a refusal is answered on a connection that works
            if (refused != null) {
                details.put("refused", refused);
            }
            details.put("unavailableSince", String.valueOf(guard.unavailableSince()));
            details.put("error", String.valueOf(guard.lastError()));
            return details;
        }
        try {
            details.putAll(check());
            failedInARow.set(0);
            details.put("degraded", false);
            details.put("decisions", "redis");
        } catch (RuntimeException e) {
            int failures = failedInARow.incrementAndGet();
            details.put("failedChecksInARow", failures);
            details.put("error", String.valueOf(e.getMessage()));
            boolean degraded = failures >= FAILED_CHECKS_FOR_DEGRADED || guard.isOpen();
            details.put("degraded", degraded); // one slow answer is not an outage
            if (degraded) {
                details.put("decisions", decisionsWithoutRedis);
            }
        }
        details.put("circuitOpen", guard.isOpen());
        if (guard.unavailableSince() != null) {
            details.put("unavailableSince", String.valueOf(guard.unavailableSince()));
        }
        return details;
    }

    /** Details for the health endpoint: the scripts Redis had to be given again, and the breaker state. */
    Map<String, Object> check() {
        List<LuaScript> scripts = LuaScript.kept(); // those of the capabilities this JVM made
        String[] shas = scripts.stream().map(LuaScript::sha1).toArray(String[]::new);
        // SCRIPT EXISTS needs one script at least; with none, a script that only returns asks whether Redis answers
        List<Boolean> loaded = shas.length == 0
                ? guard.call(() -> script.evalAsync(RScript.Mode.READ_ONLY, "return {}", RScript.ReturnType.LIST))
                : guard.call(() -> script.scriptExistsAsync(shas));
        int reloaded = 0;
        for (int i = 0; i < scripts.size(); i++) {
            if (!Boolean.TRUE.equals(loaded.get(i))) {
                LuaScript missing = scripts.get(i);
                guard.call(() -> script.scriptLoadAsync(missing.source()).thenApply(sha -> sha));
                reloaded++;
            }
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("scripts", scripts.size());
        details.put("scriptsReloaded", reloaded);
        details.put("failures", guard.failures());
        return details;
    }
}
