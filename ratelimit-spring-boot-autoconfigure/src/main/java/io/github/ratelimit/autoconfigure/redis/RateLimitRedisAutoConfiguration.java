package io.github.ratelimit.autoconfigure.redis;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.core.ClientBlocks;
import io.github.ratelimit.core.LimitOverrides;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.redis.RedisConnector;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.RedisInstances;
import io.github.ratelimit.redis.concurrency.RedisConcurrencyLimiter;
import io.github.ratelimit.redis.limits.RedisBlocks;
import io.github.ratelimit.redis.limits.RedisOverrides;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.wiring.LiveInstances;
import io.github.ratelimit.spring.wiring.RateLimitWarmUp;
import io.github.ratelimit.spring.wiring.StartupSummary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The Redis implementations of the SPIs on the application's {@link RedissonClient}: the guard (budget and circuit
 * breaker), the first connection in the background, single-use tokens, locks, concurrency slots and, unless
 * {@code ratelimit.enabled=false}, the rate limiter with the count of live instances, operators' blocks and overrides,
 * the warm-up and the startup line. A bean of an SPI the application declares replaces the Redis one.
 */
@AutoConfiguration(after = RateLimitRedissonAutoConfiguration.class, before = RateLimitAutoConfiguration.class)
@EnableConfigurationProperties(RateLimitProperties.class)
@ConditionalOnClass(name = "io.github.ratelimit.redis.limits.RedisRateLimiter")
@ConditionalOnProperty(name = "ratelimit.store", havingValue = "redis", matchIfMissing = true)
public final class RateLimitRedisAutoConfiguration {

    /** Pause between attempts to make the first connection. */
    static final Duration CONNECT_RETRY = Duration.ofSeconds(1);

    /** How often each instance announces itself in Redis (an announcement lasts three times as long). */
    static final Duration ANNOUNCE_EVERY = Duration.ofSeconds(2);

    @Bean
    RedisGuard rateLimitRedisGuard(RateLimitProperties properties, ObjectProvider<RedissonClient> redisson) {
        RateLimitProperties.Redis redis = properties.getRedis();
        RedissonClient client = redisson.getIfAvailable();
        String target = client == null ? "(none)" : RedisConnector.describe(client);
        return RedisGuard.awaitingConnection(
                target, redis.getTimeout(), redis.getFailureThreshold(), redis.getOpenFor());
    }

    /** Connects in the background once the context starts (see {@link RedisFirstConnection}); never here. */
    @Bean(destroyMethod = "close")
    @ConditionalOnBean(RedissonClient.class)
    RedisConnector rateLimitRedisConnector(
            RedissonClient redisson, RedisGuard guard, RateLimitProperties properties, Environment environment) {
        return new RedisConnector(redisson, guard, connectTimeout(properties, environment), CONNECT_RETRY, List.of());
    }

    /**
     * The first connection, made and waited for (at most connect-timeout) as the context starts, before the web
     * server takes requests; with require-at-startup a failed attempt fails the start.
     */
    @Bean
    @ConditionalOnBean(RedissonClient.class)
    RedisFirstConnection rateLimitRedisFirstConnection(
            RedisConnector connector, RedisGuard guard, RateLimitProperties properties, Environment environment) {
        return new RedisFirstConnection(
                connector,
                guard,
                connectTimeout(properties, environment),
                properties.getRedis().isRequireAtStartup());
    }

    static Duration connectTimeout(RateLimitProperties properties, Environment environment) {
        return RateLimitRedissonAutoConfiguration.settings(environment)
                .connectTimeout(properties.getRedis().getConnectTimeout());
    }

    @Bean
    @ConditionalOnBean(RedissonClient.class)
    @ConditionalOnMissingBean(SingleUseTokens.class)
    RedisSingleUseTokens singleUseTokens(RedissonClient redisson, RateLimitProperties properties, RedisGuard guard) {
        return new RedisSingleUseTokens(
                redisson,
                properties.getKeyPrefix(),
                guard,
                properties.getDurability().waitFor(properties.getDurability().isTokens(), guard.budget()));
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnBean(RedissonClient.class)
    @ConditionalOnMissingBean(LockManager.class)
    RedisLockManager lockManager(
            RedissonClient redisson, RateLimitProperties properties, RedisGuard guard, Environment environment) {
        return new RedisLockManager(
                redisson,
                properties.getKeyPrefix(),
                guard,
                properties.getDurability().waitFor(properties.getDurability().isLocks(), guard.budget()),
                RedisLockManager.holder(environment.getProperty("spring.application.name", "")));
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnBean(RedissonClient.class)
    @ConditionalOnMissingBean(ConcurrencyLimiter.class)
    RedisConcurrencyLimiter concurrencyLimiter(
            RedissonClient redisson, RateLimitProperties properties, RedisGuard guard) {
        return new RedisConcurrencyLimiter(redisson, properties.getKeyPrefix(), guard);
    }

    @Bean
    StartupSummary rateLimitStartupSummary(
            ObjectProvider<DeclaredLimits> sources, ObjectProvider<RedisGuard> guard, RateLimitProperties properties) {
        return new StartupSummary(
                sources,
                () -> guard.getIfAvailable() == null
                        ? "none"
                        : guard.getObject().state(),
                new StartupSummary.Settings(
                        properties.isEnabled(),
                        properties.getRedis().getTimeout(),
                        properties.getFailureMode(),
                        properties.isShadow(),
                        properties.getKeyPrefix()));
    }

    /** Rate limits on Redis. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
    static final class Enabled {

        /** This instance's announcement in Redis, and the count of live instances that local limits divide by. */
        @Bean(destroyMethod = "close")
        @ConditionalOnBean(RedissonClient.class)
        RedisInstances rateLimitInstances(RedissonClient redisson, RedisGuard guard, RateLimitProperties properties) {
            return new RedisInstances(
                    redisson,
                    guard,
                    properties.getKeyPrefix(),
                    properties.getLocalLimits().getInstances(),
                    ANNOUNCE_EVERY);
        }

        /**
         * The announcements and the mirrors of blocks and overrides, started before the web server takes requests and
         * stopped after it (see {@link RedisBackgroundWork}).
         */
        @Bean
        RedisBackgroundWork rateLimitRedisBackgroundWork(
                ObjectProvider<RedisInstances> instances,
                ObjectProvider<RedisBlocks> blocks,
                ObjectProvider<RedisOverrides> overrides) {
            List<RedisBackgroundWork.Worker> workers = new ArrayList<>();
            instances.ifAvailable(i -> workers.add(new RedisBackgroundWork.Worker("announcements", i::start, i)));
            blocks.ifAvailable(b -> workers.add(new RedisBackgroundWork.Worker("blocks", b::start, b)));
            overrides.ifAvailable(o -> workers.add(new RedisBackgroundWork.Worker("overrides", o::start, o)));
            return new RedisBackgroundWork(workers);
        }

        @Bean
        @ConditionalOnBean(RedisInstances.class)
        LiveInstances rateLimitLiveInstances(RedisInstances instances) {
            return instances::count;
        }

        /** The clients blocked by operators, on every instance sharing the key prefix. */
        @Bean(destroyMethod = "close")
        @ConditionalOnBean(RedissonClient.class)
        @ConditionalOnMissingBean(ClientBlocks.class)
        RedisBlocks rateLimitBlocks(RedissonClient redisson, RedisGuard guard, RateLimitProperties properties) {
            return new RedisBlocks(redisson, guard, properties.getKeyPrefix(), Duration.ofSeconds(1));
        }

        /** Operators' overrides of limits by name, on every instance sharing the key prefix. */
        @Bean(destroyMethod = "close")
        @ConditionalOnBean(RedissonClient.class)
        @ConditionalOnMissingBean(LimitOverrides.class)
        RedisOverrides rateLimitOverrides(RedissonClient redisson, RedisGuard guard, RateLimitProperties properties) {
            return new RedisOverrides(redisson, guard, properties.getKeyPrefix(), Duration.ofSeconds(1));
        }

        @Bean
        @ConditionalOnBean(RedissonClient.class)
        @ConditionalOnMissingBean(RateLimiter.class)
        RedisRateLimiter rateLimiter(RedissonClient redisson, RateLimitProperties properties, RedisGuard guard) {
            RateLimitProperties.LocalRefusalSettings local = properties.getLocalRefusals();
            return new RedisRateLimiter(
                    redisson,
                    properties.getKeyPrefix(),
                    guard,
                    properties.getRetryAdvice().getHorizonWindows(),
                    local.isEnabled() ? local.getMaxEntries() : 0);
        }

        /** The decision path made ready before the first request, when Redis answers at start. */
        @Bean
        RateLimitWarmUp rateLimitWarmUp(
                ObjectProvider<RateLimitDecisions> decisions,
                ObjectProvider<RedisGuard> guard,
                ObjectProvider<RedisConnector> connector) {
            return new RateLimitWarmUp(
                    decisions,
                    () -> {
                        RedisGuard redis = guard.getIfAvailable();
                        return redis != null && redis.isConnected() && connector.getIfAvailable() != null;
                    },
                    () -> connector.getObject().healthCheck());
        }
    }
}
