package io.github.ratelimit.autoconfigure.health;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.redis.RedisConnector;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Whether the rate limiter's Redis answers within the budget and knows the scripts (forgotten ones are loaded
 * again). The status stays UP, with {@code degraded} in the details: see {@link RedisConnector#health}.
 */
final class RateLimitHealthIndicator extends AbstractHealthIndicator {

    private final RedisConnector connector;
    private final Supplier<FailureMode> failureMode;

    /** @param failureMode what rate limits that leave it to the application do while Redis cannot decide */
    RateLimitHealthIndicator(RedisConnector connector, Supplier<FailureMode> failureMode) {
        super("Rate limit Redis health check failed");
        this.connector = connector;
        this.failureMode = failureMode;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        String decisions =
                switch (failureMode.get()) {
                    case CLOSED -> "refused (fail-closed)";
                    case OPEN -> "not checked (fail-open)";
                    default -> "in memory, per instance (local)";
                };
        builder.up().withDetails(connector.health(decisions));
    }
}
