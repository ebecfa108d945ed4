package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.core.SingleUseTokens;
import io.github.ratelimit.core.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.SingleUseTokens.TokenConsumption;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/** Counts token issues, consumptions and releases by outcome ({@code ratelimit.tokens}) and times them. */
final class MeteredSingleUseTokens implements SingleUseTokens {

    private final SingleUseTokens delegate;
    private final MeterRegistry registry;
    private final Timer issue;
    private final Timer consume;
    private final Timer release;

    MeteredSingleUseTokens(SingleUseTokens delegate, MeterRegistry registry) {
        this.delegate = delegate;
        this.registry = registry;
        this.issue = RateLimitMeters.redisTimer(registry, "token.issue");
        this.consume = RateLimitMeters.redisTimer(registry, "token.consume");
        this.release = RateLimitMeters.redisTimer(registry, "token.release");
    }

    @Override
    public IssuedToken issue(String purpose, Map<String, String> metadata, Duration ttl, int uses) {
        IssuedToken issued = issue.record(() -> delegate.issue(purpose, metadata, ttl, uses));
        count("issue", "issued");
        return issued;
    }

    @Override
    public TokenConsumption consume(String purpose, String token) {
        TokenConsumption consumption = consume.record(() -> delegate.consume(purpose, token));
        count("consume", consumption.status().name().toLowerCase(Locale.ROOT));
        return consumption;
    }

    @Override
    public boolean release(String purpose, String token) {
        boolean released = release.record(() -> delegate.release(purpose, token));
        count("release", released ? "released" : "not_released");
        return released;
    }

    @Override
    public CompletionStage<IssuedToken> issueAsync(
            String purpose, Map<String, String> metadata, Duration ttl, int uses) {
        long started = System.nanoTime();
        return delegate.issueAsync(purpose, metadata, ttl, uses).thenApply(issued -> {
            issue.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            count("issue", "issued");
            return issued;
        });
    }

    @Override
    public CompletionStage<TokenConsumption> consumeAsync(String purpose, String token) {
        long started = System.nanoTime();
        return delegate.consumeAsync(purpose, token).thenApply(consumption -> {
            consume.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            count("consume", consumption.status().name().toLowerCase(Locale.ROOT));
            return consumption;
        });
    }

    @Override
    public CompletionStage<Boolean> releaseAsync(String purpose, String token) {
        long started = System.nanoTime();
        return delegate.releaseAsync(purpose, token).thenApply(released -> {
            release.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            count("release", released ? "released" : "not_released");
            return released;
        });
    }

    private void count(String operation, String outcome) {
        Counter.builder("ratelimit.tokens")
                .description("Single-use token operations by outcome")
                .tag("operation", operation)
                .tag("outcome", outcome)
                .register(registry)
                .increment();
    }
}
