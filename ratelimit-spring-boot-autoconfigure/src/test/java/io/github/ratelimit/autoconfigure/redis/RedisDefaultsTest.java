package io.github.ratelimit.autoconfigure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The properties' defaults (which know no Redis class) are the Redis implementations' own. */
class RedisDefaultsTest {

    @Test
    void thePropertiesDefaultToWhatTheRedisImplementationsDefaultTo() {
        RateLimitProperties properties = new RateLimitProperties();
        assertThat(properties.getLocalRefusals().getMaxEntries()).isEqualTo(RedisRateLimiter.DEFAULT_LOCAL_REFUSALS);
        assertThat(properties.getRetryAdvice().getHorizonWindows()).isEqualTo(RedisRateLimiter.DEFAULT_HORIZON_WINDOWS);
        for (Duration budget : new Duration[] {Duration.ofMillis(200), Duration.ofMillis(333), Duration.ofSeconds(3)}) {
            assertThat(properties.getDurability().waitFor(true, budget))
                    .isEqualTo(RedisSingleUseTokens.defaultReplicaWait(budget));
        }
        assertThat(properties.getDurability().waitFor(false, Duration.ofMillis(200)))
                .isZero();
    }
}
