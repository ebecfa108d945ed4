package io.github.ratelimit.redis.limits;

import io.github.ratelimit.core.LimitOverrides;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
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
    private static final LuaScript SCRIPT = LuaScript.load(RedisOverrides.class, "overrides");

    private final RedisMirror mirror;
    private volatile Map<String, Change> overrides = Map.of();

    /**
     * @param redisson the client; not closed by this class
     * @param guard bounds every call
     * @param keyPrefix the prefix of the limits' keys: applications with the same prefix share their overrides
     * @param refreshEvery how often the overrides are read again besides the announcements of changes
     */
    public RedisOverrides(RedissonClient redisson, RedisGuard guard, String keyPrefix, Duration refreshEvery) {
        this.mirror = new RedisMirror(redisson, guard, SCRIPT, keyPrefix + "overrides", refreshEvery, this::read);
    }

    /** Reads the overrides at once and then every {@code refreshEvery}, from a daemon thread; never waits for Redis. */
    public void start() {
        mirror.start();
    }

    /** Whether this instance hears the announcements of changes (until then it learns of them by its reads). */
    boolean isListening() {
        return mirror.isListening();
    }

    @Override
    public @Nullable Change get(String name) {
        Map<String, Change> current = overrides;
        return current.isEmpty() ? null : current.get(name);
    }

    @Override
    public void set(String name, Change override) {
        String value = (override.limit() == null ? 0 : override.limit()) + ","
                + (override.window() == null ? 0 : override.window().toMillis()) + ","
                + (override.shadow() == null ? -1 : override.shadow() ? 1 : 0);
        mirror.change("set", name, value);
    }

    @Override
    public boolean remove(String name) {
        List<Object> reply = mirror.change("del", name);
        return ScriptExecutor.number(reply.get(0)) > 0;
    }

    @Override
    public Map<String, Change> list() {
        return overrides;
    }

    /** Keeps a {@code list} reply of overrides.lua: each name and its value. */
    private void read(List<Object> answer, long asked) {
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
    }

    @Override
    public void close() {
        mirror.close();
    }
}
