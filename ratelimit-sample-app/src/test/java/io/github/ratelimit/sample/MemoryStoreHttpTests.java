package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

/**
 * The servlet sample app on the memory store ({@code ratelimit.store=memory}), with no Redis process at all: its HTTP
 * contract holds in one instance, tokens, locks, the scheduled job, penalties and operators' writes included (the
 * dashboard's panels of Redis itself stay empty).
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"ratelimit.store=memory", "sample.embedded-redis=false"})
class MemoryStoreHttpTests extends SampleHttpContract {

    @Autowired
    ApplicationContext context;

    @Test
    void noRedisClientIsMade() {
        assertThat(context.getBeanNamesForType(RedissonClient.class)).isEmpty();
    }

    /** The health has a {@code ratelimit} component on the memory store too, saying where decisions are made. */
    @Test
    void theHealthSaysDecisionsAreMadeInThisInstance() {
        Health health = context.getBean("ratelimitHealthIndicator", HealthIndicator.class)
                .health(true);
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails())
                .containsEntry("store", "memory")
                .containsEntry("degraded", false)
                .containsEntry("decisions", "in this instance's memory (ratelimit.store=memory): each instance alone");
    }
}
