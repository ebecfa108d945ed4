package io.github.ratelimit.autoconfigure.health;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code ratelimit} health component on the memory store ({@code ratelimit.store=memory}): always UP, never
 * degraded, and it says where decisions are made, so that an operator reading the health of an instance learns that
 * its limits, tokens and locks hold in that instance alone, as the Redis store's component says where it decides.
 */
final class MemoryStoreHealthIndicator extends AbstractHealthIndicator {

    MemoryStoreHealthIndicator() {
        super("Rate limit memory store health check failed");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.up()
                .withDetail("store", "memory")
                .withDetail("degraded", false)
                .withDetail("decisions", "in this instance's memory (ratelimit.store=memory): each instance alone");
    }
}
