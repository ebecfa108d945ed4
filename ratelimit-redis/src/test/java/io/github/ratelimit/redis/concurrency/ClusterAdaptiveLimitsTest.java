package io.github.ratelimit.redis.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.AdaptivePermit;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.Status;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.Steering;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.fixtures.SharedCluster;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.test.kit.Poll;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * An adaptive limit on a real Redis Cluster, two instances with a client each: its scripts' keys share one hash slot
 * (no CROSSSLOT), a steering written by one instance holds on the other, and the status lists the windows applied.
 */
class ClusterAdaptiveLimitsTest {

    @Test
    void aSteeringHoldsAcrossInstancesOnACluster() {
        String name = "cluster-steer-" + UUID.randomUUID();
        ClientIdentifier key = ClientIdentifier.of("dependency");
        AdaptiveSettings settings = new AdaptiveSettings(1, 100, 10, 2.0, Duration.ofMillis(20));
        Duration lease = Duration.ofSeconds(30);
        RedissonClient clientA = SharedCluster.get().newClient();
        RedissonClient clientB = SharedCluster.get().newClient();
        try (RedisConcurrencyLimiter a = new RedisConcurrencyLimiter(clientA, "adaptive:", Guards.patient());
                RedisConcurrencyLimiter b = new RedisConcurrencyLimiter(clientB, "adaptive:", Guards.patient())) {
            try (AdaptivePermit first = a.tryAcquire(name, key, settings, lease, lease)) {
                assertThat(first.limit()).isEqualTo(10);
            }
            b.steer(name, key, new Steering(3, null, null));
            Poll.until("the pin to hold on the other instance", Duration.ofSeconds(20), () -> {
                try (AdaptivePermit permit = a.tryAcquire(name, key, settings, lease, lease)) {
                    return permit.limit() == 3;
                }
            });
            Status status = b.status(name, key);
            assertThat(status.limit()).isEqualTo(3);
            assertThat(status.steering()).isEqualTo(new Steering(3, null, null));
            assertThat(status.windows()).isNotEmpty();
            assertThat(status.windows().get(0).limit()).isEqualTo(3);

            a.steer(name, key, null);
            assertThat(b.status(name, key).steering()).isNull();
        } finally {
            clientA.shutdown();
            clientB.shutdown();
        }
    }
}
