package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.core.LockManager;
import io.github.ratelimit.core.LockManager.LockHandle;
import io.github.ratelimit.core.LockManager.LockOptions;
import io.github.ratelimit.core.LockNotAcquiredException;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.internal.Futures;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Counts lock acquisitions by outcome ({@code ratelimit.locks.acquisitions}: acquired, busy, unavailable) and
 * times how long callers waited for them ({@code ratelimit.locks.wait}).
 */
final class MeteredLockManager implements LockManager, AutoCloseable {

    private final LockManager delegate;
    private final MeterRegistry registry;
    private final Timer wait;

    MeteredLockManager(LockManager delegate, MeterRegistry registry) {
        this.delegate = delegate;
        this.registry = registry;
        this.wait = Timer.builder("ratelimit.locks.wait")
                .description("Time spent acquiring locks, waiting included")
                .register(registry);
    }

    @Override
    public LockHandle tryAcquire(String key, LockOptions options) {
        long started = System.nanoTime();
        try {
            LockHandle lock = delegate.tryAcquire(key, options);
            count("acquired");
            return lock;
        } catch (LockNotAcquiredException e) {
            count("busy");
            throw e;
        } catch (RedisUnavailableException e) {
            count("unavailable");
            throw e;
        } finally {
            wait.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public CompletionStage<LockHandle> tryAcquireAsync(String key, LockOptions options) {
        long started = System.nanoTime();
        return delegate.tryAcquireAsync(key, options).whenComplete((lock, error) -> {
            Throwable cause = Futures.cause(error);
            count(
                    cause == null
                            ? "acquired"
                            : cause instanceof LockNotAcquiredException
                                    ? "busy"
                                    : cause instanceof RedisUnavailableException ? "unavailable" : null);
            wait.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        });
    }

    @Override
    public void close() throws Exception {
        if (delegate instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    private void count(String outcome) {
        if (outcome == null) {
            return;
        }
        Counter.builder("ratelimit.locks.acquisitions")
                .description("Lock acquisitions by outcome")
                .tag("outcome", outcome)
                .register(registry)
                .increment();
    }
}
