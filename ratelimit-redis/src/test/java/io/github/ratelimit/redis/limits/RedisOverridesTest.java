package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.LimitOverrides.Change;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.test.kit.Poll;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Overrides on a real Redis, seen by two instances (two clients): set on one, known to the other within a second
 * through pub/sub (its periodic read is a minute away here); kept for an instance that starts later; removed
 * everywhere.
 */
class RedisOverridesTest {

    /** The longest a change may take to reach an instance here. */
    private static final Duration WITHIN = Duration.ofSeconds(1);

    private final String prefix = "overrides-" + UUID.randomUUID() + ":";
    private RedissonClient clientOne;
    private RedissonClient clientTwo;
    private RedisOverrides one;
    private RedisOverrides two;

    @BeforeEach
    void start() throws InterruptedException {
        clientOne = SharedRedis.get().newClient();
        clientTwo = SharedRedis.get().newClient();
        one = new RedisOverrides(clientOne, Guards.patient(), prefix, Duration.ofMinutes(1));
        two = new RedisOverrides(clientTwo, Guards.patient(), prefix, Duration.ofMinutes(1));
        one.start();
        two.start();
        // both hear announcements before a test changes anything (else they would learn of it by their reads)
        Poll.until("both instances listening", WITHIN, () -> one.isListening() && two.isListening());
    }

    @AfterEach
    void stop() {
        one.close();
        two.close();
        clientOne.shutdown();
        clientTwo.shutdown();
    }

    @Test
    void anOverrideSetOnOneInstanceIsKnownToTheOtherAtOnceKeptForLaterOnesAndRemovedEverywhere() throws Exception {
        Change quota = new Change(2L, Duration.ofSeconds(1), null);
        one.set("hello", quota);
        assertThat(one.get("hello")).isEqualTo(quota);
        Poll.until("the quota seen on the other instance", WITHIN, () -> quota.equals(two.get("hello")));
        one.set("export", new Change(null, null, true));
        Poll.until(
                "shadow mode seen on the other instance",
                WITHIN,
                () -> two.get("export") != null
                        && Boolean.TRUE.equals(two.get("export").shadow()));

        RedisOverrides later = new RedisOverrides(clientTwo, Guards.patient(), prefix, Duration.ofMinutes(1));
        try {
            later.start();
            Poll.until("the quota read by a later instance", WITHIN, () -> quota.equals(later.get("hello")));
        } finally {
            later.close();
        }

        assertThat(two.remove("hello")).isTrue();
        assertThat(two.get("hello")).isNull();
        Poll.until("the removal seen on the first instance", WITHIN, () -> one.get("hello") == null);
        assertThat(one.remove("hello")).isFalse();
        assertThat(one.list()).containsOnlyKeys("export");
    }
}
