package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.aop.AnnotationStartupValidator;
import io.github.ratelimit.aop.CallerContext;
import io.github.ratelimit.aop.LockedAdvisor;
import io.github.ratelimit.aop.RateLimitAdvisor;
import io.github.ratelimit.aop.RateLimitSettings;
import io.github.ratelimit.aop.SingleUseAdvisor;
import io.github.ratelimit.core.DeclaredLimits;
import io.github.ratelimit.core.LockManager;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RedisFallbacks;
import io.github.ratelimit.core.SingleUseTokens;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.RedisLockManager;
import io.github.ratelimit.redis.RedisRateLimiter;
import io.github.ratelimit.redis.RedisSingleUseTokens;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * The Redis rate limiter, single-use tokens and locks, and the interception of {@code @RateLimited},
 * {@code @SingleUse} and {@code @Locked} methods.
 */
@AutoConfiguration(after = RateLimitRedissonAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RedisGuard rateLimitRedisGuard(RateLimitProperties properties) {
        RateLimitProperties.Redis redis = properties.getRedis();
        return new RedisGuard(redis.getTimeout(), redis.getFailureThreshold(), redis.getOpenFor());
    }

    @Bean
    @ConditionalOnMissingBean
    RedisFallbacks rateLimitRedisFallbacks() {
        return new RedisFallbacks();
    }

    @Bean
    @ConditionalOnMissingBean
    RateLimitSettings rateLimitSettings(ObjectProvider<RateLimitProperties> properties, RedisFallbacks fallbacks) {
        return new RateLimitSettings(
                () -> properties.getObject().isShadow(),
                () -> properties.getObject().isFailClosed(),
                fallbacks);
    }

    @Bean
    @ConditionalOnMissingBean(RateLimiter.class)
    RedisRateLimiter rateLimiter(RedissonClient redisson, RateLimitProperties properties, RedisGuard guard) {
        return new RedisRateLimiter(redisson, properties.getKeyPrefix(), guard);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static RateLimitAdvisor rateLimitAdvisor(
            ObjectProvider<RateLimiter> limiter,
            ObjectProvider<CallerContext> caller,
            ObjectProvider<RateLimitSettings> settings) {
        return new RateLimitAdvisor(limiter, caller, settings);
    }

    @Bean
    @ConditionalOnMissingBean(SingleUseTokens.class)
    RedisSingleUseTokens singleUseTokens(RedissonClient redisson, RateLimitProperties properties, RedisGuard guard) {
        return new RedisSingleUseTokens(redisson, properties.getKeyPrefix(), guard);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static SingleUseAdvisor singleUseAdvisor(
            ObjectProvider<SingleUseTokens> tokens, ObjectProvider<CallerContext> caller) {
        return new SingleUseAdvisor(tokens, caller);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockManager.class)
    RedisLockManager lockManager(RedissonClient redisson, RateLimitProperties properties, RedisGuard guard) {
        return new RedisLockManager(redisson, properties.getKeyPrefix(), guard);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static LockedAdvisor lockedAdvisor(ObjectProvider<LockManager> locks, ObjectProvider<CallerContext> caller) {
        return new LockedAdvisor(locks, caller);
    }

    @Bean
    StartupSummary rateLimitStartupSummary(
            ObjectProvider<DeclaredLimits> sources,
            ObjectProvider<RedissonClient> redisson,
            RateLimitProperties properties) {
        return new StartupSummary(sources, redisson, properties);
    }

    @Bean
    static RedisMemoryPolicyCheck rateLimitRedisMemoryPolicyCheck(ObjectProvider<RedissonClient> redisson) {
        return new RedisMemoryPolicyCheck(redisson);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static AnnotationStartupValidator annotationStartupValidator(ConfigurableListableBeanFactory beanFactory) {
        return new AnnotationStartupValidator(beanFactory);
    }
}
