package io.github.ratelimit.redis.limits;

import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A copy in this JVM of what operators keep in one Redis key for every instance (blocks, overrides): the key is read
 * with its script's {@code list} operation at start, whenever an instance announces a change (pub/sub on
 * {@code <key>-changed}) and every {@code refreshEvery} as a safety net; a change made here is written, read back at
 * once and announced. The subscription is made from the reading thread once Redis has answered, so that no Redis
 * state stops the application from starting. Reads and writes go through the {@link RedisGuard}.
 */
final class RedisMirror implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisMirror.class);

    private final ScriptExecutor executor;
    private final LuaScript script;
    private final List<Object> key;
    private final ForgetAnnouncements changes;
    private final Duration refreshEvery;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final BiConsumer<List<Object>, Long> onRead;
    /**
     * The last read asked for. Reads run one after the other, each asked once the one before it has been kept: two
     * reads on two connections could otherwise be answered out of order, and an older copy (read before a change)
     * would replace a newer one until the next periodic read.
     */
    private CompletableFuture<Void> lastRead = CompletableFuture.completedFuture(null); // guarded by this
    /** Whether {@link #lastRead} has not been sent yet: a change made now is still in what it will read. */
    private boolean lastReadWaiting; // guarded by this

    /**
     * @param key the key, also the name of its channel ({@code <key>-changed}) and thread
     * @param onRead given each {@code list} reply and the JVM's monotonic time (nanos) when it was asked for
     */
    RedisMirror(
            RedissonClient redisson,
            RedisGuard guard,
            LuaScript script,
            String key,
            Duration refreshEvery,
            BiConsumer<List<Object>, Long> onRead) {
        this.executor = new ScriptExecutor(redisson, guard);
        this.script = script;
        this.key = List.of(key);
        this.changes = new ForgetAnnouncements(
                redisson,
                guard,
                key + "-changed",
                "operators' changes made on other instances reach this one at its next read (every "
                        + refreshEvery.toMillis() + " ms), not at once");
        this.refreshEvery = refreshEvery;
        this.onRead = onRead;
        String name = "ratelimit-" + key.substring(key.lastIndexOf(':') + 1);
        this.timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Reads at once and then every {@code refreshEvery}, from a daemon thread; never waits for Redis (once: a second
     * start does nothing).
     */
    void start() {
        if (!started.compareAndSet(false, true) || closed.get()) {
            return;
        }
        timer.scheduleWithFixedDelay(this::refresh, 0, refreshEvery.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Runs a write of the script, waiting for Redis; then reads back at once, announces the change and waits (within
     * the guard's budget) until every instance that heard it has read it back too, so that the next call on any
     * instance sees it.
     */
    List<Object> change(Object... args) {
        List<Object> reply = executor.call(script, key, args);
        refresh().join();
        try {
            changes.announceAndWait("changed");
        } catch (RuntimeException e) {
            log.debug("A change of {} was not announced; other instances read it within {}", key, refreshEvery, e);
        }
        return reply;
    }

    /**
     * Reads the key once the read under way (if any) has been kept, so that copies are kept in the order they were
     * read; a read that has not been sent yet is shared. Keeps the last copy if Redis does not answer.
     */
    synchronized CompletableFuture<Void> refresh() {
        if (!lastReadWaiting) {
            lastReadWaiting = true;
            lastRead = lastRead.thenCompose(ignored -> {
                sent();
                return readOnce();
            });
        }
        return lastRead;
    }

    /** Whether no read is under way or waiting to be sent. */
    synchronized boolean isSettled() {
        return !lastReadWaiting && lastRead.isDone();
    }

    private synchronized void sent() {
        lastReadWaiting = false;
    }

    private CompletableFuture<Void> readOnce() {
        CompletableFuture<List<Object>> reply;
        try {
            reply = executor.callAsync(script, key, new Object[] {"list"}).toCompletableFuture();
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        long asked = System.nanoTime();
        return reply.handle((answer, error) -> {
            if (error != null) {
                log.debug("{} not read again; keeping the last copy", key, error);
                return null;
            }
            onRead.accept(answer, asked);
            listen();
            return null;
        });
    }

    /** Whether this instance hears the announcements of changes (until then it learns of them by its reads). */
    boolean isListening() {
        return changes.isListening();
    }

    /** Subscribes to the announcements once Redis answered (tried again on the next read if it failed). */
    private void listen() {
        changes.listen(what -> readBack());
    }

    /** A read asked for on this mirror's thread, complete once kept (at once when the mirror is closed). */
    private CompletionStage<?> readBack() {
        try {
            return CompletableFuture.supplyAsync(this::refresh, timer).thenCompose(read -> read);
        } catch (RejectedExecutionException closed) {
            return CompletableFuture.completedFuture(null);
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        timer.shutdownNow();
        try {
            changes.stopListening();
        } catch (RuntimeException e) {
            log.debug("Could not stop listening for changes of {}", key, e);
        }
    }
}
