package io.github.ratelimit.autoconfigure.redis;

import io.github.ratelimit.redis.RedisConnector;
import io.github.ratelimit.redis.RedisGuard;
import java.time.Duration;
import org.springframework.context.SmartLifecycle;

/**
 * The first connection to Redis, made as the application context starts rather than as its beans are made: the
 * connector's thread starts, and the start waits for its first attempt at most {@code connect-timeout} (Redis refused,
 * an unknown host or a wrong password fail the attempt at once), so that an application whose Redis is up decides from
 * its first request, however slow the machine is at starting. With {@code require-at-startup}, an attempt that failed
 * fails the start with {@link RedisNotReachableException}; without it, the connector goes on trying in the background
 * and calls are answered as the failure mode says meanwhile.
 *
 * <p>Its phase, {@link #PHASE}, is the lowest of the Redis store's: the connection is up (or known down) before the
 * background work ({@link RedisBackgroundWork}) and the warm-up start, and it closes after them.
 */
final class RedisFirstConnection implements SmartLifecycle {

    /** Below the background work's phase: started first, stopped last. */
    static final int PHASE = RedisBackgroundWork.PHASE - 1024;

    private final RedisConnector connector;
    private final RedisGuard guard;
    private final Duration connectTimeout;
    private final boolean required;
    private volatile boolean running;

    RedisFirstConnection(RedisConnector connector, RedisGuard guard, Duration connectTimeout, boolean required) {
        this.connector = connector;
        this.guard = guard;
        this.connectTimeout = connectTimeout;
        this.required = required;
    }

    @Override
    public void start() {
        connector.start();
        running = true;
        Throwable failure = connector.awaitFirstAttempt(connectTimeout);
        if (failure != null && required) {
            stop();
            String reason = guard.lastError() != null ? guard.lastError() : String.valueOf(failure.getMessage());
            throw new RedisNotReachableException(guard.target(), reason, failure);
        }
    }

    @Override
    public void stop() {
        running = false;
        connector.close();
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
