package io.github.ratelimit.autoconfigure;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * A Redisson client from {@code spring.data.redis.*} (url or host/port, username, password, ssl, timeouts,
 * sentinel, cluster), unless the application has its own {@link RedissonClient}. Shut down with the context.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
public final class RateLimitRedissonAutoConfiguration {

    @Bean(destroyMethod = "shutdown")
    @ConditionalOnMissingBean(RedissonClient.class)
    RedissonClient rateLimitRedissonClient(Environment environment) {
        return Redisson.create(RedisConnectionSettings.from(environment).toRedissonConfig());
    }
}
