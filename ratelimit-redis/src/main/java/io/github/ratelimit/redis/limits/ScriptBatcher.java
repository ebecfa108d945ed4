package io.github.ratelimit.redis.limits;

import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Coalesces concurrent calls of a batch script into one script call: each call is still decided on its own and
 * in one round trip, but calls that meet on the way to the same hash slot share that round trip, so the per
 * command cost of the client, the network and Redis is paid once per batch instead of once per call.
 *
 * <p>Nothing ever waits for a batch to fill: a call is sent at once while fewer than {@link #MAX_IN_FLIGHT}
 * script calls of its slot are on their way; only beyond that does it queue, and it leaves with the next batch
 * as soon as one of them is answered. A call whose caller stopped waiting (its future is done, e.g. cancelled
 * by the guard's budget) before it was sent is left out, so nothing is counted for it.
 *
 * <p>The script takes {@code ARGV = [number of calls, then per call: its arguments]}, the keys of all calls in
 * order, and returns one reply per call, which reaches that call as it is. Each call's arguments must start with its
 * number of keys.
 */
final class ScriptBatcher {

    /** Script calls of one slot on their way at once; more callers than this queue for the next batch. */
    static final int MAX_IN_FLIGHT = 2;

    /** Keys in one script call at most, which bounds how long Redis is busy with one batch. */
    static final int MAX_KEYS = 256;

    private final ScriptExecutor executor;
    private final Function<List<String>, LuaScript> scripts;
    /** Per slot, a lane per script: calls of one shape share a script call. */
    private final ConcurrentMap<Integer, ConcurrentMap<LuaScript, Lane>> lanes = new ConcurrentHashMap<>();

    /**
     * Tests only: an argument sent first in every script call, which the clock piece of scripts assembled for a test
     * reads (see {@link DecisionScripts#DecisionScripts(String)}); null, as in production: none.
     */
    private volatile @Nullable String clockArgument;

    void clockArgument(@Nullable String argument) {
        clockArgument = argument;
    }

    /** @param scripts the script for a call's arguments (its shape's, see {@link DecisionScripts}) */
    ScriptBatcher(ScriptExecutor executor, Function<List<String>, LuaScript> scripts) {
        this.executor = executor;
        this.scripts = scripts;
    }

    /**
     * Queues one call for the keys of one hash slot and sends it at once if the slot has room in flight.
     *
     * @param args the call's arguments, starting with {@code keys.size()}
     * @return the call's own reply; cancelling it before it is sent keeps it from being sent
     */
    CompletableFuture<Object> submit(int slot, List<String> keys, List<String> args) {
        Pending pending = new Pending(keys, args, new CompletableFuture<>());
        LuaScript script = scripts.apply(args);
        lanes.computeIfAbsent(slot, s -> new ConcurrentHashMap<>())
                .computeIfAbsent(script, Lane::new)
                .submit(pending);
        return pending.reply;
    }

    /** The replies of every part in order; cancelling the whole cancels every part not yet sent. */
    static CompletableFuture<List<Object>> allOf(List<CompletableFuture<Object>> parts) {
        if (parts.size() == 1) {
            CompletableFuture<Object> only = parts.get(0);
            CompletableFuture<List<Object>> whole = only.thenApply(List::of);
            whole.whenComplete((r, e) -> only.cancel(false));
            return whole;
        }
        CompletableFuture<List<Object>> whole = CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new))
                .thenApply(done -> parts.stream().map(CompletableFuture::join).toList());
        whole.whenComplete((r, e) -> parts.forEach(part -> part.cancel(false)));
        return whole;
    }

    private record Pending(List<String> keys, List<String> args, CompletableFuture<Object> reply) {}

    /** The calls of one slot and shape: a queue, and how many script calls are on their way. */
    private final class Lane {

        private final LuaScript script;
        private final ArrayDeque<Pending> queue = new ArrayDeque<>();
        private int inFlight;

        Lane(LuaScript script) {
            this.script = script;
        }

        void submit(Pending pending) {
            List<Pending> batch;
            synchronized (this) {
                queue.add(pending);
                if (inFlight >= MAX_IN_FLIGHT) {
                    return;
                }
                inFlight++;
                batch = takeBatch();
            }
            send(batch);
        }

        /** Takes the next batch, or gives up this in-flight place when nothing is waiting. Holds the lock. */
        private @Nullable List<Pending> takeBatch() {
            List<Pending> batch = new ArrayList<>();
            int keys = 0;
            while (!queue.isEmpty()) {
                Pending next = queue.peek();
                if (next.reply.isDone()) {
                    queue.poll(); // its caller stopped waiting before it was sent
                    continue;
                }
                if (!batch.isEmpty() && (keys + next.keys.size() > MAX_KEYS || script.oneCallEach())) {
                    break;
                }
                batch.add(queue.poll());
                keys += next.keys.size();
            }
            if (batch.isEmpty()) {
                inFlight--;
                return null;
            }
            return batch;
        }

        private @Nullable List<Pending> next() {
            synchronized (this) {
                return takeBatch();
            }
        }

        private void send(@Nullable List<Pending> batch) {
            while (batch != null) {
                CompletableFuture<List<Object>> sent;
                try {
                    sent = executor.run(script, keysOf(batch), argsOf(batch)).toCompletableFuture();
                } catch (RuntimeException e) {
                    sent = CompletableFuture.failedFuture(e);
                }
                if (!sent.isDone()) {
                    List<Pending> current = batch;
                    sent.whenComplete((reply, error) -> {
                        List<Pending> following = next(); // taken before the callers of this batch wake up
                        try {
                            complete(script, current, reply, error);
                        } finally {
                            send(following); // whatever happens, what was taken is sent, so the lane never stalls
                        }
                    });
                    return;
                }
                List<Pending> current = batch;
                batch = next();
                sent.whenComplete((reply, error) -> complete(script, current, reply, error)); // done: here and now
            }
        }
    }

    private static List<Object> keysOf(List<Pending> batch) {
        List<Object> keys = new ArrayList<>();
        for (Pending pending : batch) {
            keys.addAll(pending.keys);
        }
        return keys;
    }

    private Object[] argsOf(List<Pending> batch) {
        List<Object> args = new ArrayList<>();
        String clock = clockArgument;
        if (clock != null) {
            args.add(clock);
        }
        args.add(Integer.toString(batch.size()));
        for (Pending pending : batch) {
            args.addAll(pending.args);
        }
        return args.toArray();
    }

    private static void complete(LuaScript script, List<Pending> batch, List<Object> reply, Throwable error) {
        if (error == null && (reply == null || reply.size() != batch.size())) {
            error = new IllegalStateException("Unexpected reply from script " + script.name() + ": " + reply);
        }
        for (int i = 0; i < batch.size(); i++) {
            CompletableFuture<Object> target = batch.get(i).reply;
            if (error != null) {
                target.completeExceptionally(error);
            } else {
                target.complete(reply.get(i));
            }
        }
    }
}
