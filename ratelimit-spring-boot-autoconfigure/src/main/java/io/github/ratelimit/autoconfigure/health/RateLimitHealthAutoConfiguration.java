package io.github.ratelimit.autoconfigure.health;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.redis.RedisConnector;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.context.annotation.Bean;

/** The {@code ratelimit} health indicator: Redis answers in time and knows the scripts. */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass(value = AbstractHealthIndicator.class, name = "io.github.ratelimit.redis.RedisConnector")
@ConditionalOnEnabledHealthIndicator("ratelimit")
public final class RateLimitHealthAutoConfiguration {

    @Bean(name = "ratelimitHealthIndicator")
    @ConditionalOnMissingBean(RateLimitHealthIndicator.class)
    @ConditionalOnBean(RedisConnector.class)
    RateLimitHealthIndicator rateLimitHealthIndicator(RedisConnector connector, RateLimitProperties properties) {
        return new RateLimitHealthIndicator(connector, properties::getFailureMode);
    }
}
