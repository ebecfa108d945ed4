package io.github.ratelimit.autoconfigure.redis;

import io.github.ratelimit.redis.RedisConnectionSettings;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * A Redisson client for the rate limits, tokens and locks, unless the application has its own
 * {@link RedissonClient}. Where to connect comes from Spring Boot's Redis connection-details bean when there is one
 * (Testcontainers' {@code @ServiceConnection}, Docker Compose), else from {@code spring.data.redis.*} (url or
 * host/port, username, password, ssl and SSL bundle, sentinel, cluster), read here because Boot's own reader lives in
 * {@code spring-boot-data-redis}, which would bring a second Redis client. The client connects lazily (see
 * {@code RedisConnector}), so the application starts whatever state Redis is in, and never retries a command.
 */
@AutoConfiguration(
        after = SslAutoConfiguration.class,
        afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(name = "io.github.ratelimit.redis.limits.RedisRateLimiter")
@ConditionalOnProperty(name = "ratelimit.store", havingValue = "redis", matchIfMissing = true)
public final class RateLimitRedissonAutoConfiguration {

    private static final String DETAILS =
            "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

    @Bean(destroyMethod = "shutdown")
    @ConditionalOnMissingBean(RedissonClient.class)
    RedissonClient rateLimitRedissonClient(
            Environment environment,
            ObjectProvider<SslBundles> sslBundles,
            ObjectProvider<ConnectionDetails> connectionDetails) {
        Duration configured = Binder.get(environment)
                .bind("ratelimit.redis.connect-timeout", Duration.class)
                .orElse(null);
        try {
            RedisConnectionSettings settings = settings(environment);
            Object details = ClassUtils.isPresent(DETAILS, getClass().getClassLoader())
                    ? ConnectionDetailsSettings.find(
                            connectionDetails.orderedStream().toList())
                    : null;
            SslBundle bundle = null;
            if (details != null) {
                bundle = ConnectionDetailsSettings.sslBundle(details);
                settings = ConnectionDetailsSettings.apply(details, settings);
            } else if (settings.sslBundle() != null) {
                SslBundles bundles = sslBundles.getIfAvailable();
                if (bundles == null) {
                    throw new IllegalArgumentException("spring.data.redis.ssl.bundle names '" + settings.sslBundle()
                            + "', but there are no SSL bundles: define it under spring.ssl.bundle.*"
                            + " and keep SslAutoConfiguration");
                }
                bundle = bundles.getBundle(settings.sslBundle());
            }
            settings.describe(); // a malformed URL fails here, with the property named
            return Redisson.create(settings.toRedissonConfig(settings.connectTimeout(configured), tls(bundle)));
        } catch (IllegalArgumentException e) {
            throw new InvalidRedisSettingsException(e.getMessage(), e);
        }
    }

    /** The standard {@code spring.data.redis.*} properties, read without depending on Spring Data Redis. */
    static RedisConnectionSettings settings(Environment environment) {
        return Binder.get(environment)
                .bind("spring.data.redis", Bindable.of(RedisConnectionSettings.class))
                .orElseGet(RedisConnectionSettings::defaults);
    }

    private static RedisConnectionSettings.@Nullable Tls tls(@Nullable SslBundle bundle) {
        if (bundle == null) {
            return null;
        }
        boolean key = bundle.getStores().getKeyStore() != null;
        return new RedisConnectionSettings.Tls(
                bundle.getManagers().getTrustManagerFactory(),
                key ? bundle.getManagers().getKeyManagerFactory() : null,
                bundle.getOptions().getEnabledProtocols(),
                bundle.getOptions().getCiphers());
    }
}
