package io.github.ratelimit.redis;

import io.github.ratelimit.core.ClientBlocks;
import io.github.ratelimit.core.ClientIdentifier;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Clients blocked by an operator on every instance: a block names a kind of key and a value ({@code ip} and an
 * address, {@code principal} and a name, {@code header:x-api-key} and a key, or an application's own kind) and lasts a
 * given time on the Redis clock. Blocks live in Redis (one sorted set per key prefix, each block ending by itself);
 * every instance keeps a copy in memory, read again at once when any instance announces a change (pub/sub) and every
 * {@code refreshEvery} as a safety net, so that checking a call costs no Redis call. Reads and writes go through the
 * {@link RedisGuard}.
 */
public final class RedisBlocks implements ClientBlocks, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisBlocks.class);
    private static final LuaScript SCRIPT = LuaScript.load("blocks");

    private final ScriptExecutor executor;
    private final List<Object> key;
    private final RTopic changes;
    private final Duration refreshEvery;
    private final ScheduledExecutorService timer;
    /** The blocks as last read: member to its end on this JVM's monotonic clock (nanos). */
    private volatile Map<String, Long> blocks = Map.of();

    private final java.util.concurrent.atomic.AtomicBoolean listening = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile boolean subscribed;
    /** The Redis time of the last read (ms) and when it was read on this JVM's monotonic clock. */
    private volatile long[] lastRead = {0, System.nanoTime()};

    /**
     * @param redisson the client; not closed by this class
     * @param guard bounds every call
     * @param keyPrefix the prefix of the limits' keys: applications with the same prefix share their blocks
     * @param refreshEvery how often the blocks are read again besides the announcements of changes
     */
    public RedisBlocks(RedissonClient redisson, RedisGuard guard, String keyPrefix, Duration refreshEvery) {
        this.executor = new ScriptExecutor(redisson, guard);
        this.key = List.of(keyPrefix + "blocks");
        this.changes = redisson.getTopic(keyPrefix + "blocks-changed", StringCodec.INSTANCE);
        this.refreshEvery = refreshEvery;
        this.timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "ratelimit-blocks");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Reads the blocks at once and then every {@code refreshEvery}, from a daemon thread; listens for changes from the
     * first read on that Redis answers. Nothing here waits for Redis, which may not be there yet.
     */
    public void start() {
        timer.scheduleWithFixedDelay(this::refresh, 0, refreshEvery.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Subscribes to the announcements of changes, once Redis answered; tried again on the next read if it failed. */
    /** Whether this instance hears the announcements of changes (until then it learns of them by its reads). */
    boolean isListening() {
        return subscribed;
    }

    private void listen() {
        if (!listening.compareAndSet(false, true)) {
            return;
        }
        try {
            changes.addListenerAsync(String.class, (channel, message) -> {
                        if (!timer.isShutdown()) {
                            timer.execute(this::refresh);
                        }
                    })
                    .whenComplete((id, error) -> {
                        if (error != null) {
                            listening.set(false);
                        } else {
                            subscribed = true;
                        }
                    });
        } catch (RuntimeException e) {
            listening.set(false);
        }
    }

    /** How long this client stays blocked, or null when it is not: from memory, no Redis call. */
    @Override
    public Duration blockedFor(ClientIdentifier client) {
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
        executor.call(SCRIPT, key, new Object[] {"add", member(client), Long.toString(duration.toMillis())});
        announce();
    }

    /** Lifts a client's block on every instance; whether there was one. Waits for Redis. */
    @Override
    public boolean lift(ClientIdentifier client) {
        List<Object> reply = executor.call(SCRIPT, key, new Object[] {"del", member(client)});
        announce();
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

    /** Reads the blocks from Redis now; keeps the last copy if Redis does not answer. */
    CompletableFuture<Void> refresh() {
        CompletableFuture<List<Object>> reply;
        try {
            reply = executor.callAsync(SCRIPT, key, new Object[] {"list"}).toCompletableFuture();
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        long read = System.nanoTime();
        return reply.handle((answer, error) -> {
            if (error != null) {
                log.debug("Blocks not read again; keeping the last copy", error);
                return null;
            }
            long now = ScriptExecutor.number(answer.get(0));
            Map<String, Long> fresh = new java.util.HashMap<>();
            for (int i = 1; i + 1 < answer.size(); i += 2) {
                long ends = Long.parseLong(String.valueOf(answer.get(i + 1)));
                fresh.put(String.valueOf(answer.get(i)), read + TimeUnit.MILLISECONDS.toNanos(ends - now));
            }
            blocks = fresh.isEmpty() ? Map.of() : Map.copyOf(fresh);
            lastRead = new long[] {now, read};
            listen();
            return null;
        });
    }

    /** Every instance reads the blocks again; this one at once, and waits for that within the budget. */
    private void announce() {
        refresh().join();
        try {
            changes.publishAsync("changed");
        } catch (RuntimeException e) {
            log.debug("A change of the blocks was not announced; other instances read it within {}", refreshEvery, e);
        }
    }

    private static String member(ClientIdentifier client) {
        return (client.kind() == null ? "" : client.kind()) + '\n' + client.value();
    }

    @Override
    public void close() {
        timer.shutdownNow();
        if (listening.get()) {
            try {
                changes.removeAllListenersAsync();
            } catch (RuntimeException e) {
                log.debug("Could not stop listening for changes of the blocks", e);
            }
        }
    }
}
