package io.github.ratelimit.redis.limits;

import io.github.ratelimit.core.ClientBlocks;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

/**
 * Clients blocked by an operator on every instance: a block names a kind of key and a value ({@code ip} and an
 * address, {@code principal} and a name, {@code header:x-api-key} and a key, or an application's own kind) and lasts a
 * given time on the Redis clock. Blocks live in Redis (one sorted set per key prefix, each block ending by itself);
 * every instance keeps a copy in memory, read again at once when any instance announces a change (pub/sub) and every
 * {@code refreshEvery} as a safety net, so that checking a call costs no Redis call. Reads and writes go through the
 * {@link RedisGuard}.
 */
public final class RedisBlocks implements ClientBlocks, AutoCloseable {

    private static final LuaScript SCRIPT = LuaScript.load(RedisBlocks.class, "blocks");

    private final RedisMirror mirror;
    /** The blocks as last read: member to its end on this JVM's monotonic clock (nanos). */
    private volatile Map<String, Long> blocks = Map.of();
    /** The Redis time of the last read (ms) and when it was read on this JVM's monotonic clock. */
    private volatile long[] lastRead = {0, System.nanoTime()};

    /**
     * @param redisson the client; not closed by this class
     * @param guard bounds every call
     * @param keyPrefix the prefix of the limits' keys: applications with the same prefix share their blocks
     * @param refreshEvery how often the blocks are read again besides the announcements of changes
     */
    public RedisBlocks(RedissonClient redisson, RedisGuard guard, String keyPrefix, Duration refreshEvery) {
        this.mirror = new RedisMirror(redisson, guard, SCRIPT, keyPrefix + "blocks", refreshEvery, this::read);
    }

    /**
     * Reads the blocks at once and then every {@code refreshEvery}, from a daemon thread; listens for changes from the
     * first read on that Redis answers. Nothing here waits for Redis, which may not be there yet.
     */
    public void start() {
        mirror.start();
    }

    /** Whether this instance hears the announcements of changes (until then it learns of them by its reads). */
    boolean isListening() {
        return mirror.isListening();
    }

    /** Whether no read of the blocks is under way or waiting to be sent. */
    boolean isSettled() {
        return mirror.isSettled();
    }

    /** How long this client stays blocked, or null when it is not: from memory, no Redis call. */
    @Override
    public @Nullable Duration blockedFor(ClientIdentifier client) {
        Map<String, Long> current = blocks;
        if (current.isEmpty()) {
            return null;
        }
        Long ends = current.get(member(client));
        if (ends == null) {
            return null;
        }
        long left = ends - System.nanoTime();
        return left > 0 ? Duration.ofNanos(left) : null;
    }

    /** The Redis clock now, as estimated from the last read of the blocks and the time passed since. */
    @Override
    public java.time.Instant now() {
        long[] read = lastRead;
        return java.time.Instant.ofEpochMilli(read[0]).plusNanos(System.nanoTime() - read[1]);
    }

    /** Whether no block is known (the common case: then checking a call is one volatile read). */
    @Override
    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    /** Blocks a client for a while on every instance (a block already in force is replaced); waits for Redis. */
    @Override
    public void block(ClientIdentifier client, Duration duration) {
        if (duration.toMillis() < 1) {
            throw new IllegalArgumentException("a block lasts at least 1 ms, but was " + duration);
        }
        mirror.change("add", member(client), Long.toString(duration.toMillis()));
    }

    /** Lifts a client's block on every instance; whether there was one. Waits for Redis. */
    @Override
    public boolean lift(ClientIdentifier client) {
        List<Object> reply = mirror.change("del", member(client));
        return ScriptExecutor.number(reply.get(1)) > 0;
    }

    /** Every block in force and the time it has left, as last read. */
    @Override
    public Map<String, Duration> list() {
        Map<String, Duration> all = new LinkedHashMap<>();
        long now = System.nanoTime();
        blocks.forEach((member, ends) -> {
            if (ends - now > 0) {
                all.put(member.replace('\n', ' '), Duration.ofNanos(ends - now));
            }
        });
        return all;
    }

    /** Keeps a {@code list} reply of blocks.lua: the Redis time, then each member and its end (ms). */
    private void read(List<Object> answer, long asked) {
        long now = ScriptExecutor.number(answer.get(0));
        Map<String, Long> fresh = new java.util.HashMap<>();
        for (int i = 1; i + 1 < answer.size(); i += 2) {
            long ends = Long.parseLong(String.valueOf(answer.get(i + 1)));
            fresh.put(String.valueOf(answer.get(i)), asked + TimeUnit.MILLISECONDS.toNanos(ends - now));
        }
        blocks = fresh.isEmpty() ? Map.of() : Map.copyOf(fresh);
        lastRead = new long[] {now, asked};
    }

    private static String member(ClientIdentifier client) {
        return (client.kind() == null ? "" : client.kind()) + '\n' + client.value();
    }

    @Override
    public void close() {
        mirror.close();
    }
}
