package io.github.ratelimit.redis.internal;

import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.redis.RedisGuard;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
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
 *
 * <p>Why not Redisson's own script cache ({@code Config.useScriptCache}): it is a setting of the whole client, and the
 * starter runs on the application's {@code RedissonClient} when it has one, whose settings are not the starter's to
 * change; and the retry on NOSCRIPT must be the one exception to "never send twice", which only this class can tell
 * apart (NOSCRIPT means nothing ran).
 */
public final class ScriptExecutor {

    private static final int MAX_NOSCRIPT_ATTEMPTS = 5;

    private final RScript script;
    private final RedisGuard guard;
    private final RedissonClient redisson;
    private final Duration replicaWait;
    private final @Nullable Replicas replicas;

    public ScriptExecutor(RedissonClient redisson, RedisGuard guard) {
        this(redisson, guard, Duration.ZERO);
    }

    /**
     * @param replicaWait how long {@link #callAcknowledged} waits for a replica's acknowledgement; zero never waits
     */
    public ScriptExecutor(RedissonClient redisson, RedisGuard guard, Duration replicaWait) {
        this.guard = guard;
        this.redisson = redisson;
        this.script = boundedScript(redisson, guard);
        this.replicaWait = replicaWait;
        this.replicas = replicaWait.isZero() ? null : new Replicas(redisson);
    }

    /** A script's reply, and whether what it wrote is safe from a failover (see {@link #callAcknowledged}). */
    public record Acknowledged(List<Object> reply, boolean byReplica) {}

    /**
     * Runs a script whose writes must survive a failover before its outcome is reported: sent together with {@code WAIT
     * 1 <replica wait>} on the same connection, so that {@link Acknowledged#byReplica()} says whether a replica has
     * the write. Without a replica wait, or while no master has a replica connected (a single Redis: nothing a
     * failover could promote), it is a plain call, acknowledged.
     */
    public Acknowledged callAcknowledged(LuaScript lua, List<Object> keys, Object[] args) {
        return guard.call(() -> runAcknowledged(lua, keys, args));
    }

    /** The same call without waiting. */
    public CompletableFuture<Acknowledged> callAcknowledgedAsync(LuaScript lua, List<Object> keys, Object[] args) {
        return guard.callAsync(() -> runAcknowledged(lua, keys, args));
    }

    private CompletionStage<Acknowledged> runAcknowledged(LuaScript lua, List<Object> keys, Object[] args) {
        if (replicas == null) {
            return run(lua, keys, args).thenApply(reply -> new Acknowledged(reply, true));
        }
        return replicas.present()
                .thenCompose(present -> present
                        ? runWithWait(lua, keys, args)
                        : run(lua, keys, args).thenApply(reply -> new Acknowledged(reply, true)));
    }

    /**
     * The script and {@code WAIT} in one batch on one connection. On NOSCRIPT the script is loaded first (SCRIPT LOAD on
     * the key's node), then sent again by EVALSHA: in a batch, the client sends an EVAL by its SHA-1 without loading it,
     * so the source itself would never reach a Redis that forgot the script.
     */
    @SuppressWarnings("unchecked")
    private CompletionStage<Acknowledged> runWithWait(LuaScript lua, List<Object> keys, Object[] args) {
        String routingKey = (String) keys.get(0);
        return retryingNoScript(
                attempt -> {
                    CompletionStage<?> loaded = attempt == 0
                            ? CompletableFuture.completedFuture(null)
                            : script.scriptLoadAsync(routingKey, lua.source());
                    return loaded.thenCompose(ready -> {
                        RBatch batch = redisson.createBatch(BatchOptions.defaults()
                                .sync(1, replicaWait) // at least 1 ms (checked): WAIT 1 0 would wait forever
                                .retryAttempts(0)
                                .responseTimeout(guard.budget().toMillis(), TimeUnit.MILLISECONDS));
                        RScriptAsync batched = batch.getScript(StringCodec.INSTANCE);
                        batched.evalShaAsync(
                                routingKey, RScript.Mode.READ_WRITE, lua.sha1(), RScript.ReturnType.LIST, keys, args);
                        return batch.executeAsync()
                                .thenApply(result -> new Acknowledged(
                                        (List<Object>) result.getResponses().get(0), result.getSyncedSlaves() >= 1));
                    });
                },
                0);
    }

    /** Scripts with strings in and out, the guard's budget as timeout, and no retries (see the class comment). */
    public static RScript boundedScript(RedissonClient redisson, RedisGuard guard) {
        return boundedScript(redisson, guard.budget());
    }

    /** Asks Redis whether it answers at all: a script that only returns, within {@code timeout}, never retried. */
    public static Supplier<CompletionStage<?>> probe(RedissonClient redisson, Duration timeout) {
        RScript script = boundedScript(redisson, timeout);
        return () -> script.evalAsync(RScript.Mode.READ_ONLY, "return 1", RScript.ReturnType.LONG);
    }

    /** Scripts with strings in and out, {@code timeout} as timeout, and no retries. */
    public static RScript boundedScript(RedissonClient redisson, Duration timeout) {
        return redisson.getScript(OptionalOptions.defaults()
                .codec(StringCodec.INSTANCE)
                .timeout(timeout)
                .retryAttempts(0));
    }

    /** Runs the script within the guard's budget; throws RedisUnavailableException when Redis does not answer. */
    public List<Object> call(LuaScript lua, List<Object> keys, Object[] args) {
        return guard.call(() -> run(lua, keys, args));
    }

    /** The same call without waiting; the future fails with RedisUnavailableException as {@link #call} throws it. */
    public CompletableFuture<List<Object>> callAsync(LuaScript lua, List<Object> keys, Object[] args) {
        return guard.callAsync(() -> run(lua, keys, args));
    }

    /** Runs the script for keys that share one hash slot; returns its reply as a list. */
    public CompletionStage<List<Object>> run(LuaScript lua, List<Object> keys, Object[] args) {
        String routingKey = (String) keys.get(0);
        return retryingNoScript(
                attempt -> attempt == 0
                        ? script.evalShaAsync(
                                routingKey, RScript.Mode.READ_WRITE, lua.sha1(), RScript.ReturnType.LIST, keys, args)
                        : script.evalAsync(
                                routingKey, RScript.Mode.READ_WRITE, lua.source(), RScript.ReturnType.LIST, keys, args),
                0);
    }

    /**
     * Sends with {@code send(attempt)}: attempt 0 by EVALSHA, later ones with the source. NOSCRIPT means the script
     * did not run, so trying again cannot count twice; a client whose script cache turns EVAL into EVALSHA again can
     * meet another flush in between, so a few attempts are allowed.
     */
    private static <T> CompletionStage<T> retryingNoScript(IntFunction<CompletionStage<T>> send, int attempt) {
        // an answer passes straight through (no stage is added for it); only an error is looked at
        return send.apply(attempt).toCompletableFuture().exceptionallyCompose(error -> {
            if (isNoScript(error) && attempt < MAX_NOSCRIPT_ATTEMPTS) {
                return retryingNoScript(send, attempt + 1);
            }
            return CompletableFuture.<T>failedFuture(Futures.cause(error));
        });
    }

    /** Redis's clock, epoch ms (a script without keys: any node of a Cluster). */
    public CompletionStage<Long> redisTimeMs() {
        return script.<Long>evalAsync(
                RScript.Mode.READ_ONLY,
                "local t = redis.call('TIME') return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)",
                RScript.ReturnType.LONG);
    }

    /** Deletes one key within the budget; whether it was there. */
    public boolean delete(String key) {
        List<Object> deleted = guard.call(() -> script.evalAsync(
                key,
                RScript.Mode.READ_WRITE,
                "return {redis.call('DEL', KEYS[1])}",
                RScript.ReturnType.LIST,
                List.of(key)));
        return deleted != null && !deleted.isEmpty() && number(deleted.get(0)) > 0;
    }

    /** An integer from a script reply. */
    public static long number(Object value) {
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
