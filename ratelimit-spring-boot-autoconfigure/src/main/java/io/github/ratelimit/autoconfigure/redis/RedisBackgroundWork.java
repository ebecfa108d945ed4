package io.github.ratelimit.autoconfigure.redis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The Redis store's background work, started and stopped with the application context rather than as its beans are
 * made: this instance's announcements ({@code RedisInstances}) and the mirrors of operators' blocks and overrides
 * ({@code RedisBlocks}, {@code RedisOverrides}). No bean method starts any of them.
 *
 * <p>Its phase, {@link #PHASE}, is below that of Boot's web server ({@code WebServerStartStopLifecycle}, the default
 * phase less 2048), so the work has started before the server takes its first request, and it stops after the server
 * has stopped taking them (graceful shutdown included). Each worker's start and close happen once: a bean's own
 * destroy method, which closes it too when the context fails before it stops, does nothing more.
 */
final class RedisBackgroundWork implements SmartLifecycle {

    /** Started before the web server (the default phase less 2048), stopped after it. */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private static final Logger log = LoggerFactory.getLogger(RedisBackgroundWork.class);

    /** A worker: how it starts (without waiting for Redis) and how it stops. */
    record Worker(String name, Runnable start, AutoCloseable stop) {}

    private final List<Worker> workers;
    private volatile boolean running;

    RedisBackgroundWork(List<Worker> workers) {
        this.workers = List.copyOf(workers);
    }

    @Override
    public void start() {
        workers.forEach(worker -> worker.start().run());
        running = true;
    }

    /** Stops the workers in the reverse order of their start; one that fails to stop is logged, and the rest stop. */
    @Override
    public void stop() {
        running = false;
        List<Worker> reversed = new ArrayList<>(workers);
        Collections.reverse(reversed);
        for (Worker worker : reversed) {
            try {
                worker.stop().close();
            } catch (Exception e) {
                log.debug("Rate limits: {} did not stop cleanly", worker.name(), e);
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
