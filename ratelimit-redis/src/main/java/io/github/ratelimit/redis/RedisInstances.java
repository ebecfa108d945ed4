package io.github.ratelimit.redis;

import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many instances share the limits: each instance announces itself in Redis every {@code every} while Redis
 * answers (an announcement lasts three times as long), and keeps the last count it read, so that it still knows the
 * count once Redis is gone. Instances are counted per key prefix: applications that share a prefix share the count.
 * Announcements go through the {@link RedisGuard}, within its budget, from one daemon thread that never waits for
 * them; while the guard is open nothing is sent.
 */
public final class RedisInstances implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisInstances.class);
    private static final LuaScript SCRIPT = LuaScript.load(RedisInstances.class, "instances");

    private final ScriptExecutor executor;
    private final RedisGuard guard;
    private final List<Object> key;
    private final String id = UUID.randomUUID().toString();
    private final Duration every;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile int count;

    /**
     * @param redisson the client; not closed by this class
     * @param guard bounds every announcement
     * @param keyPrefix the prefix of the limits' keys: instances with the same prefix are counted together
     * @param assumed the count until one was read from Redis, at least 1
     * @param every how often this instance announces itself
     */
    public RedisInstances(RedissonClient redisson, RedisGuard guard, String keyPrefix, int assumed, Duration every) {
        if (assumed < 1) {
            throw new IllegalArgumentException("assumed instances must be at least 1, but was " + assumed);
        }
        if (every.toMillis() < 1) {
            throw new IllegalArgumentException("every must be at least 1 ms, but was " + every);
        }
        this.executor = new ScriptExecutor(redisson, guard);
        this.guard = guard;
        this.key = List.of(keyPrefix + "instances");
        this.count = assumed;
        this.every = every;
        this.timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "ratelimit-instances");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts announcing this instance, at once and then every {@code every} (once: a second start does nothing). */
    public void start() {
        if (!started.compareAndSet(false, true) || closed.get()) {
            return;
        }
        timer.scheduleWithFixedDelay(this::announce, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The number of live instances as last read from Redis, this one included; until then, the assumed count. */
    public int count() {
        return count;
    }

    /** Announces this instance once, and keeps the count Redis answers; a failure keeps the last count. */
    CompletableFuture<Integer> announce() {
        return send(every.multipliedBy(3).toMillis()).whenComplete((live, error) -> {
            if (error == null) {
                if (live != count) {
                    log.debug("{} live instance(s) share the rate limits", live);
                }
                count = live;
            }
        });
    }

    private CompletableFuture<Integer> send(long lastsMs) {
        try {
            return executor.callAsync(SCRIPT, key, new Object[] {id, Long.toString(lastsMs)})
                    .thenApply(reply -> Math.max(1, (int) ScriptExecutor.number(reply.get(0))));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Stops announcing and, if Redis answers within the budget, leaves the count at once (once). */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        timer.shutdownNow();
        try {
            send(0).get(guard.budget().toMillis() + 100, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.debug("This instance could not leave the count in Redis; its announcement expires by itself", e);
        }
    }
}
