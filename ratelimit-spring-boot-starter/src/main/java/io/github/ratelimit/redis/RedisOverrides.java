package io.github.ratelimit.redis;

import io.github.ratelimit.core.LimitOverrides;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operators' overrides of limits by name, on Redis (one hash per key prefix, kept until removed, so across restarts);
 * every instance keeps a copy in memory, read again at once when any instance announces a change (pub/sub) and every
 * {@code refreshEvery} as a safety net, so that a decision reads no Redis for it. Reads and writes go through the
 * {@link RedisGuard}; while Redis has not answered, no override is known.
 */
public final class RedisOverrides implements LimitOverrides, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisOverrides.class);
    private static final LuaScript SCRIPT = LuaScript.load("overrides");

    private final ScriptExecutor executor;
    private final List<Object> key;
    private final RTopic changes;
    private final Duration refreshEvery;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean listening = new AtomicBoolean();
    private volatile boolean subscribed;
    private volatile Map<String, Change> overrides = Map.of();

    /**
     * @param redisson the client; not closed by this class
     * @param guard bounds every call
     * @param keyPrefix the prefix of the limits' keys: applications with the same prefix share their overrides
     * @param refreshEvery how often the overrides are read again besides the announcements of changes
     */
    public RedisOverrides(RedissonClient redisson, RedisGuard guard, String keyPrefix, Duration refreshEvery) {
        this.executor = new ScriptExecutor(redisson, guard);
        this.key = List.of(keyPrefix + "overrides");
        this.changes = redisson.getTopic(keyPrefix + "overrides-changed", StringCodec.INSTANCE);
        this.refreshEvery = refreshEvery;
        this.timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "ratelimit-overrides");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Reads the overrides at once and then every {@code refreshEvery}, from a daemon thread; never waits for Redis. */
    public void start() {
        timer.scheduleWithFixedDelay(this::refresh, 0, refreshEvery.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public Change get(String name) {
        Map<String, Change> current = overrides;
        return current.isEmpty() ? null : current.get(name);
    }

    @Override
    public void set(String name, Change override) {
        String value = (override.limit() == null ? 0 : override.limit()) + ","
                + (override.window() == null ? 0 : override.window().toMillis()) + ","
                + (override.shadow() == null ? -1 : override.shadow() ? 1 : 0);
        executor.call(SCRIPT, key, new Object[] {"set", name, value});
        announce();
    }

    @Override
    public boolean remove(String name) {
        List<Object> reply = executor.call(SCRIPT, key, new Object[] {"del", name});
        announce();
        return ScriptExecutor.number(reply.get(0)) > 0;
    }

    @Override
    public Map<String, Change> list() {
        return overrides;
    }

    /** Reads the overrides from Redis now; keeps the last copy if Redis does not answer. */
    CompletableFuture<Void> refresh() {
        CompletableFuture<List<Object>> reply;
        try {
            reply = executor.callAsync(SCRIPT, key, new Object[] {"list"}).toCompletableFuture();
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return reply.handle((answer, error) -> {
            if (error != null) {
                log.debug("Overrides not read again; keeping the last copy", error);
                return null;
            }
            Map<String, Change> fresh = new HashMap<>();
            for (int i = 0; i + 1 < answer.size(); i += 2) {
                String[] parts = String.valueOf(answer.get(i + 1)).split(",");
                try {
                    long limit = Long.parseLong(parts[0]);
                    long window = Long.parseLong(parts[1]);
                    int shadow = Integer.parseInt(parts[2]);
                    fresh.put(
                            String.valueOf(answer.get(i)),
                            new Change(
                                    limit == 0 ? null : limit,
                                    window == 0 ? null : Duration.ofMillis(window),
                                    shadow < 0 ? null : shadow == 1));
                } catch (RuntimeException e) {
                    log.warn("Ignoring the override of '{}', which is not readable: {}", answer.get(i), e.getMessage());
                }
            }
            overrides = fresh.isEmpty() ? Map.of() : Map.copyOf(fresh);
            listen();
            return null;
        });
    }

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

    private void announce() {
        refresh().join();
        try {
            changes.publishAsync("changed");
        } catch (RuntimeException e) {
            log.debug(
                    "A change of the overrides was not announced; other instances read it within {}", refreshEvery, e);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        if (listening.get()) {
            try {
                changes.removeAllListenersAsync();
            } catch (RuntimeException e) {
                log.debug("Could not stop listening for changes of the overrides", e);
            }
        }
    }
}
