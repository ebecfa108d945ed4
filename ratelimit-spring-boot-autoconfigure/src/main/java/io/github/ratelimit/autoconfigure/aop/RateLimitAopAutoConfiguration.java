package io.github.ratelimit.autoconfigure.aop;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.aop.AdvisorDeclarations;
import io.github.ratelimit.spring.aop.AnnotationStartupValidator;
import io.github.ratelimit.spring.aop.ConcurrencyLimitedAdvisor;
import io.github.ratelimit.spring.aop.LockedAdvisor;
import io.github.ratelimit.spring.aop.RateLimitAdvisor;
import io.github.ratelimit.spring.aop.SingleUseAdvisor;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.Plans;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * The interception of {@code @SingleUse}, {@code @Locked} and {@code @ConcurrencyLimited} methods and, unless
 * {@code ratelimit.enabled=false}, of {@code @RateLimited} methods: one advisor per annotation, on the SPI beans and
 * the decision flow of {@link RateLimitAutoConfiguration}. Every annotated method is checked at startup; a definition
 * that cannot work stops the start with a message naming the method and the attribute.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
public final class RateLimitAopAutoConfiguration {

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static SingleUseAdvisor singleUseAdvisor(
            ObjectProvider<SingleUseTokens> tokens, ObjectProvider<CallerContext> caller) {
        return new SingleUseAdvisor(tokens, caller);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static ConcurrencyLimitedAdvisor concurrencyLimitedAdvisor(
            ObjectProvider<ConcurrencyLimiter> limiter,
            ObjectProvider<CallerContext> caller,
            ObjectProvider<KeyResolvers> keys) {
        return new ConcurrencyLimitedAdvisor(limiter, caller, keys);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static LockedAdvisor lockedAdvisor(
            ObjectProvider<LockManager> locks,
            ObjectProvider<CallerContext> caller,
            ObjectProvider<KeyResolvers> keys) {
        return new LockedAdvisor(locks, caller, keys);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static AnnotationStartupValidator annotationStartupValidator(ConfigurableListableBeanFactory beanFactory) {
        return new AnnotationStartupValidator(beanFactory);
    }

    /** What the annotations declare on a method, for the OpenAPI documentation. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static AdvisorDeclarations rateLimitMethodDeclarations(
            ObjectProvider<RateLimitAdvisor> rateLimits,
            ObjectProvider<ConcurrencyLimitedAdvisor> concurrencyLimits,
            ObjectProvider<SingleUseAdvisor> tokens,
            ObjectProvider<LockedAdvisor> locks) {
        return new AdvisorDeclarations(rateLimits, concurrencyLimits, tokens, locks);
    }

    /** The interception of {@code @RateLimited} methods, through the decision flow. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
    static final class Enabled {

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        @ConditionalOnMissingBean
        static RateLimitAdvisor rateLimitAdvisor(
                ObjectProvider<RateLimitDecisions> decisions,
                ObjectProvider<RateLimiter> limiter,
                ObjectProvider<CallerContext> caller,
                ObjectProvider<KeyResolvers> keys,
                ObjectProvider<Plans> plans) {
            return new RateLimitAdvisor(decisions, limiter, caller, keys, plans);
        }
    }
}
