package io.github.ratelimit.autoconfigure.memory;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.core.ClientBlocks;
import io.github.ratelimit.core.LimitOverrides;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.internal.LockHolders;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.local.LocalClientBlocks;
import io.github.ratelimit.local.LocalConcurrencyLimiter;
import io.github.ratelimit.local.LocalLimitOverrides;
import io.github.ratelimit.local.LocalLockManager;
import io.github.ratelimit.local.LocalRateLimiter;
import io.github.ratelimit.local.LocalSingleUseTokens;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Where rate limits are counted when it is not Redis: with {@code ratelimit.store=memory}, in this instance's memory
 * alone ({@link LocalRateLimiter}, the limiter that decides while Redis cannot, and the tokens, locks and concurrency
 * limits of {@code io.github.ratelimit.local}), announced with a WARN at startup;
 * without the Redis module and without that choice, the start fails saying so. The memory is never chosen for an
 * application: one whose Redis is down keeps Redis and its failure mode.
 */
@AutoConfiguration(before = RateLimitAutoConfiguration.class)
public final class RateLimitMemoryAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(RateLimitMemoryAutoConfiguration.class);

    /**
     * {@code ratelimit.store=memory}: a limiter in this instance's memory (with rate limits on; off, the limiter that
     * admits every call stands in, as with Redis).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "ratelimit.store", havingValue = "memory")
    @ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
    static final class Memory {

        @Bean
        @ConditionalOnMissingBean(RateLimiter.class)
        LocalRateLimiter rateLimiter(RateLimitProperties properties) {
            log.warn("Rate limits, single-use tokens, locks and concurrency limits are kept in this instance's"
                    + " memory (ratelimit.store=memory): each instance enforces every limit alone, so N instances"
                    + " admit up to N times each limit, and a lock or token holds in one instance only. For one"
                    + " instance, local development and tests.");
            return new LocalRateLimiter(properties.getLocalLimits().getMaxEntries());
        }
    }

    /**
     * {@code ratelimit.store=memory}: tokens, locks, concurrency limits and operators' blocks and overrides of this
     * instance alone.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "ratelimit.store", havingValue = "memory")
    static final class MemoryStore {

        @Bean
        @ConditionalOnMissingBean(SingleUseTokens.class)
        LocalSingleUseTokens singleUseTokens() {
            return new LocalSingleUseTokens();
        }

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(LockManager.class)
        LocalLockManager lockManager(Environment environment) {
            return new LocalLockManager(LockHolders.of(environment.getProperty("spring.application.name", "")));
        }

        @Bean
        @ConditionalOnMissingBean(ConcurrencyLimiter.class)
        LocalConcurrencyLimiter concurrencyLimiter() {
            return new LocalConcurrencyLimiter();
        }

        @Bean
        @ConditionalOnMissingBean(ClientBlocks.class)
        LocalClientBlocks rateLimitBlocks() {
            return new LocalClientBlocks();
        }

        @Bean
        @ConditionalOnMissingBean(LimitOverrides.class)
        LocalLimitOverrides rateLimitOverrides() {
            return new LocalLimitOverrides();
        }
    }

    /** Store redis (the default) without the Redis module: the start fails naming both ways out. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("io.github.ratelimit.redis.limits.RedisRateLimiter")
    @ConditionalOnProperty(name = "ratelimit.store", havingValue = "redis", matchIfMissing = true)
    static final class RedisModuleMissing {

        @Bean
        Object rateLimitStoreMissing() {
            throw new StoreNotAvailableException();
        }
    }
}
