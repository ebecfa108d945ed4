package io.github.ratelimit.redis;

import io.github.ratelimit.internal.Futures;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.OptionalOptions;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.codec.StringCodec;

/**
 * Runs scripts by EVALSHA, one round trip. When Redis does not know the script (restart, failover,
 * {@code SCRIPT FLUSH}) it answers NOSCRIPT without running anything, and the call is repeated once as EVAL
 * with the full source, which also caches the script again. No error reaches the caller.
 *
 * <p>Every call is bounded by the {@link RedisGuard}'s budget and made with Redisson's retries turned off: a
 * script that was sent but not answered in time may have run, so sending it again could count twice.
 */
final class ScriptExecutor {

    private static final int MAX_NOSCRIPT_ATTEMPTS = 5;

    private final RScript script;
    private final RedisGuard guard;

    ScriptExecutor(RedissonClient redisson, RedisGuard guard) {
        this.guard = guard;
        this.script = boundedScript(redisson, guard);
    }

    /** Scripts with strings in and out, the guard's budget as timeout, and no retries (see the class comment). */
    static RScript boundedScript(RedissonClient redisson, RedisGuard guard) {
        return redisson.getScript(OptionalOptions.defaults()
                .codec(StringCodec.INSTANCE)
                .timeout(guard.budget())
                .retryAttempts(0));
    }

    /** Runs the script within the guard's budget; throws RedisUnavailableException when Redis does not answer. */
    List<Object> call(LuaScript lua, List<Object> keys, Object[] args) {
        return guard.call(() -> run(lua, keys, args));
    }

    /** The same call without waiting; the future fails with RedisUnavailableException as {@link #call} throws it. */
    CompletableFuture<List<Object>> callAsync(LuaScript lua, List<Object> keys, Object[] args) {
        return guard.callAsync(() -> run(lua, keys, args));
    }

    /** Runs the script for keys that share one hash slot; returns its reply as a list. */
    CompletionStage<List<Object>> run(LuaScript lua, List<Object> keys, Object[] args) {
        return run(lua, keys, args, 0);
    }

    /**
     * NOSCRIPT means the script did not run, so trying again cannot count twice. The source is sent with
     * EVAL; a client whose script cache turns that into EVALSHA again can meet another flush in between, so a
     * few attempts are allowed.
     */
    private CompletionStage<List<Object>> run(LuaScript lua, List<Object> keys, Object[] args, int attempt) {
        String routingKey = (String) keys.get(0);
        CompletionStage<List<Object>> sent = attempt == 0
                ? script.evalShaAsync(
                        routingKey, RScript.Mode.READ_WRITE, lua.sha1(), RScript.ReturnType.LIST, keys, args)
                : script.evalAsync(
                        routingKey, RScript.Mode.READ_WRITE, lua.source(), RScript.ReturnType.LIST, keys, args);
        return sent.handle((reply, error) -> {
                    if (error == null) {
                        return CompletableFuture.completedFuture(reply);
                    }
                    if (isNoScript(error) && attempt < MAX_NOSCRIPT_ATTEMPTS) {
                        return run(lua, keys, args, attempt + 1);
                    }
                    return CompletableFuture.<List<Object>>failedFuture(Futures.cause(error));
                })
                .thenCompose(stage -> stage);
    }

    /** Deletes one key within the budget. */
    void delete(String key) {
        guard.call(() -> script.evalAsync(
                key,
                RScript.Mode.READ_WRITE,
                "return {redis.call('DEL', KEYS[1])}",
                RScript.ReturnType.LIST,
                List.of(key)));
    }

    /** An integer from a script reply. */
    static long number(Object value) {
        return value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value));
    }

    private static boolean isNoScript(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof RedisNoScriptException
                    || (t.getMessage() != null && t.getMessage().startsWith("NOSCRIPT"))) {
                return true;
            }
        }
        return false;
    }
}
