package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.redis.RedisConnector;
import io.github.ratelimit.redis.RedisGuard;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Whether the rate limiter's Redis answers within the budget and knows the scripts (forgotten ones are loaded
 * again). One slow answer does not flap the health: the indicator turns DOWN after three failed checks in a row,
 * or at once while the circuit breaker is open or the first connection has not been made. A DOWN here says that
 * Redis is unreachable (with its address and since when); it is not part of the liveness or readiness groups
 * unless the application adds it there.
 */
final class RateLimitHealthIndicator extends AbstractHealthIndicator {

    static final int FAILED_CHECKS_FOR_DOWN = 3;

    private final RedisConnector connector;
    private final RedisGuard guard;
    private final AtomicInteger failedInARow = new AtomicInteger();

    RateLimitHealthIndicator(RedisConnector connector, RedisGuard guard) {
        super("Rate limit Redis health check failed");
        this.connector = connector;
        this.guard = guard;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("redis", guard.target());
        if (!guard.isConnected()) {
            builder.down()
                    .withDetail("connected", false)
                    .withDetail("unavailableSince", String.valueOf(guard.unavailableSince()))
                    .withDetail("error", String.valueOf(guard.lastError()));
            return;
        }
        try {
            builder.withDetails(connector.healthCheck());
            failedInARow.set(0);
            builder.up();
        } catch (RuntimeException e) {
            int failures = failedInARow.incrementAndGet();
            builder.withDetail("failedChecksInARow", failures).withDetail("error", e.getMessage());
            if (failures >= FAILED_CHECKS_FOR_DOWN || guard.isOpen()) {
                builder.down();
            } else {
                builder.up(); // one slow answer is not an outage
            }
        }
        builder.withDetail("circuitOpen", guard.isOpen());
        if (guard.unavailableSince() != null) {
            builder.withDetail("unavailableSince", guard.unavailableSince().toString());
        }
    }
}
