package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.ConcurrencyLimiter;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.internal.Futures;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/** Counts slot acquisitions by limit name and outcome ({@code ratelimit.concurrency}: acquired, refused, unavailable). */
final class MeteredConcurrencyLimiter implements ConcurrencyLimiter, AutoCloseable {

    private final ConcurrencyLimiter delegate;
    private final MeterRegistry registry;

    MeteredConcurrencyLimiter(ConcurrencyLimiter delegate, MeterRegistry registry) {
        this.delegate = delegate;
        this.registry = registry;
    }

    @Override
    public Permit tryAcquire(String name, ClientIdentifier identifier, int max, Duration lease, Duration maxLifetime) {
        try {
            Permit permit = delegate.tryAcquire(name, identifier, max, lease, maxLifetime);
            count(name, "acquired");
            return permit;
        } catch (RuntimeException e) {
            count(name, outcome(e));
            throw e;
        }
    }

    @Override
    public CompletionStage<Permit> tryAcquireAsync(
            String name, ClientIdentifier identifier, int max, Duration lease, Duration maxLifetime) {
        return delegate.tryAcquireAsync(name, identifier, max, lease, maxLifetime)
                .whenComplete(
                        (permit, error) -> count(name, error == null ? "acquired" : outcome(Futures.cause(error))));
    }

    private static String outcome(Throwable error) {
        if (error instanceof ConcurrencyLimitExceededException) {
            return "refused";
        }
        return error instanceof RedisUnavailableException ? "unavailable" : "error";
    }

    private void count(String name, String outcome) {
        Counter.builder("ratelimit.concurrency")
                .description("Concurrency-limit slot acquisitions by limit name and outcome")
                .tag("limit", name == null ? "none" : name)
                .tag("outcome", outcome)
                .register(registry)
                .increment();
    }

    @Override
    public void close() throws Exception {
        if (delegate instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }
}
