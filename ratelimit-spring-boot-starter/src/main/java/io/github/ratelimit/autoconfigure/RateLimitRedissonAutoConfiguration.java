package io.github.ratelimit.autoconfigure;

import java.time.Duration;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * A Redisson client from {@code spring.data.redis.*} (url or host/port, username, password, ssl and SSL bundle,
 * timeouts, sentinel, cluster), unless the application has its own {@link RedissonClient}. Shut down with the context.
 * Commands time out after {@code ratelimit.redis.timeout} (or {@code spring.data.redis.timeout}) and are never
 * retried by Redisson, since a script resent after a timeout could count twice.
 */
@AutoConfiguration(after = SslAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
public final class RateLimitRedissonAutoConfiguration {

    @Bean(destroyMethod = "shutdown")
    @ConditionalOnMissingBean(RedissonClient.class)
    RedissonClient rateLimitRedissonClient(Environment environment, ObjectProvider<SslBundles> sslBundles) {
        Duration budget = Binder.get(environment)
                .bind("ratelimit.redis.timeout", Duration.class)
                .orElse(Duration.ofMillis(200));
        RedisConnectionSettings settings = RedisConnectionSettings.from(environment);
        SslBundle bundle = null;
        if (settings.sslBundle() != null) {
            SslBundles bundles = sslBundles.getIfAvailable();
            if (bundles == null) {
                throw new IllegalStateException("spring.data.redis.ssl.bundle names '" + settings.sslBundle()
                        + "', but there are no SSL bundles: define it under spring.ssl.bundle.*"
                        + " and keep SslAutoConfiguration");
            }
            bundle = bundles.getBundle(settings.sslBundle());
        }
        return Redisson.create(settings.toRedissonConfig(budget, bundle));
    }
}
