package io.github.ratelimit.autoconfigure;

import java.time.Duration;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * A Redisson client from {@code spring.data.redis.*} (url or host/port, username, password, ssl, timeouts,
 * sentinel, cluster), unless the application has its own {@link RedissonClient}. Shut down with the context.
 * Commands time out after {@code ratelimit.redis.timeout} (or {@code spring.data.redis.timeout}) and are never
 * retried by Redisson, since a script resent after a timeout could count twice.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
public final class RateLimitRedissonAutoConfiguration {

    @Bean(destroyMethod = "shutdown")
    @ConditionalOnMissingBean(RedissonClient.class)
    RedissonClient rateLimitRedissonClient(Environment environment) {
        Duration budget = Binder.get(environment)
                .bind("ratelimit.redis.timeout", Duration.class)
                .orElse(Duration.ofMillis(200));
        return Redisson.create(RedisConnectionSettings.from(environment).toRedissonConfig(budget));
    }
}
