package io.github.ratelimit.test.support;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.codec.StringCodec;

/** Plain Redis commands for assertions, run through a tiny Lua call so any command is reachable. */
public final class RedisCommands {

    private RedisCommands() {}

    /** Runs one command and returns its reply (as Redisson decodes a Lua reply). */
    public static <T> T call(RedissonClient client, String command, Object... args) {
        return run(client, command, null, args);
    }

    /** Runs one command on a key, routed to the node that holds the key (in a Cluster too). */
    public static <T> T onKey(RedissonClient client, String command, String key, Object... args) {
        return run(client, command, key, args);
    }

    @SuppressWarnings("unchecked")
    private static <T> T run(RedissonClient client, String command, @Nullable String key, Object[] args) {
        StringBuilder lua =
                new StringBuilder("return redis.call('").append(command).append('\'');
        if (key != null) {
            lua.append(", KEYS[1]");
        }
        for (int i = 1; i <= args.length; i++) {
            lua.append(", ARGV[").append(i).append(']');
        }
        lua.append(')');
        Object[] values = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            values[i] = String.valueOf(args[i]);
        }
        var script = client.getScript(StringCodec.INSTANCE);
        return key == null
                ? (T) script.eval(RScript.Mode.READ_WRITE, lua.toString(), RScript.ReturnType.LIST, List.of(), values)
                : (T) script.eval(
                        key, RScript.Mode.READ_WRITE, lua.toString(), RScript.ReturnType.LIST, List.of(key), values);
    }

    /** The Redis server's clock in milliseconds. */
    public static long timeMs(RedissonClient client) {
        List<Object> time = call(client, "TIME");
        return Long.parseLong(time.get(0).toString()) * 1000
                + Long.parseLong(time.get(1).toString()) / 1000;
    }

    /** Waits, spinning, until the Redis server's clock reads {@code epochMs} or later; fails after 10 seconds. */
    public static void awaitTimeMs(RedissonClient client, long epochMs) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (timeMs(client) < epochMs) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("The Redis clock did not reach " + epochMs + " within 10 s");
            }
            Thread.onSpinWait();
        }
    }

    /** How many times a command was called, from INFO commandstats. */
    public static long commandCalls(RedissonClient client, String command) {
        Map<String, String> stats =
                client.getRedisNodes(RedisNodes.SINGLE).getInstance().info(RedisNode.InfoSection.COMMANDSTATS);
        String line = stats.get("cmdstat_" + command.toLowerCase());
        if (line == null) {
            return 0;
        }
        String calls = line.substring(line.indexOf("calls=") + 6);
        return Long.parseLong(calls.substring(0, calls.indexOf(',')));
    }
}
