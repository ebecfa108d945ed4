package io.github.ratelimit.autoconfigure.health;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.redis.RedisConnector;
import io.github.ratelimit.redis.RedisGuard;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Whether the rate limiter's Redis answers within the budget and knows the scripts (forgotten ones are loaded
 * again). The limiter keeps serving without Redis (in memory, open or closed, as configured), so the status stays UP
 * and the details say that it is degraded: {@code degraded: true} after three failed checks in a row, or at once while
 * the circuit breaker is open or the first connection has not been made, with Redis's address, since when, the error,
 * and how rate limits are decided meanwhile ({@code decisions}). No orchestrator takes every instance out of service
 * because their shared Redis is gone.
 */
final class RateLimitHealthIndicator extends AbstractHealthIndicator {

    static final int FAILED_CHECKS_FOR_DEGRADED = 3;

    private final RedisConnector connector;
    private final RedisGuard guard;
    private final Supplier<FailureMode> failureMode;
    private final AtomicInteger failedInARow = new AtomicInteger();

    /** @param failureMode what rate limits that leave it to the application do while Redis cannot decide */
    RateLimitHealthIndicator(RedisConnector connector, RedisGuard guard, Supplier<FailureMode> failureMode) {
        super("Rate limit Redis health check failed");
        this.connector = connector;
        this.guard = guard;
        this.failureMode = failureMode;
    }

    /** Up, and how rate limits are decided while Redis cannot. */
    private void degraded(Health.Builder builder) {
        builder.up()
                .withDetail("degraded", true)
                .withDetail(
                        "decisions",
                        switch (failureMode.get()) {
                            case CLOSED -> "refused (fail-closed)";
                            case OPEN -> "not checked (fail-open)";
                            default -> "in memory, per instance (local)";
                        });
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("redis", guard.target());
        if (!guard.isConnected()) {
            degraded(builder);
            builder.withDetail("connected", false)
                    .withDetail("unavailableSince", String.valueOf(guard.unavailableSince()))
                    .withDetail("error", String.valueOf(guard.lastError()));
            return;
        }
        try {
            builder.withDetails(connector.healthCheck());
            failedInARow.set(0);
            builder.up().withDetail("degraded", false).withDetail("decisions", "redis");
        } catch (RuntimeException e) {
            int failures = failedInARow.incrementAndGet();
            builder.withDetail("failedChecksInARow", failures).withDetail("error", String.valueOf(e.getMessage()));
            if (failures >= FAILED_CHECKS_FOR_DEGRADED || guard.isOpen()) {
                degraded(builder);
            } else {
                builder.up().withDetail("degraded", false); // one slow answer is not an outage
            }
        }
        builder.withDetail("circuitOpen", guard.isOpen());
        if (guard.unavailableSince() != null) {
            builder.withDetail("unavailableSince", guard.unavailableSince().toString());
        }
    }
}
