package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.aop.CallerContext;
import io.github.ratelimit.aop.RateLimitAdvisor;
import io.github.ratelimit.aop.RateLimitStartupValidator;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.redis.RedisRateLimiter;
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

/** The Redis rate limiter and the interception of {@code @RateLimited} methods. */
@AutoConfiguration(after = RateLimitRedissonAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(RateLimiter.class)
    RedisRateLimiter rateLimiter(RedissonClient redisson, RateLimitProperties properties) {
        return new RedisRateLimiter(redisson, properties.getKeyPrefix());
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static RateLimitAdvisor rateLimitAdvisor(
            ObjectProvider<RateLimiter> limiter, ObjectProvider<CallerContext> caller) {
        return new RateLimitAdvisor(limiter, caller);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RateLimitStartupValidator rateLimitStartupValidator(
            ConfigurableListableBeanFactory beanFactory, RateLimitAdvisor advisor) {
        return new RateLimitStartupValidator(beanFactory, advisor);
    }
}
