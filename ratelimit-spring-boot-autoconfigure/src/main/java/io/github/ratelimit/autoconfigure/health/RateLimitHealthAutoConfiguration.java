package io.github.ratelimit.autoconfigure.health;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.redis.RedisConnector;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code ratelimit} health indicator: on Redis, whether it answers in time and knows the scripts; on the memory
 * store, that decisions are made in this instance alone.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass(AbstractHealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("ratelimit")
public final class RateLimitHealthAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.github.ratelimit.redis.RedisConnector")
    static class OnRedis {

        @Bean(name = "ratelimitHealthIndicator")
        @ConditionalOnMissingBean(RateLimitHealthIndicator.class)
        @ConditionalOnBean(RedisConnector.class)
        RateLimitHealthIndicator rateLimitHealthIndicator(RedisConnector connector, RateLimitProperties properties) {
            return new RateLimitHealthIndicator(connector, properties::getFailureMode);
        }
    }

    @Bean(name = "ratelimitHealthIndicator")
    @ConditionalOnMissingBean(name = "ratelimitHealthIndicator")
    @ConditionalOnProperty(name = "ratelimit.store", havingValue = "memory")
    MemoryStoreHealthIndicator rateLimitMemoryStoreHealthIndicator() {
        return new MemoryStoreHealthIndicator();
    }
}
