package io.github.ratelimit.autoconfigure.refresh;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.definition.DeclaredLimits;
import io.github.ratelimit.autoconfigure.definition.Plans;
import io.github.ratelimit.autoconfigure.definition.RefreshableLimits;
import io.github.ratelimit.core.RateLimiter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Limits rebuilt without a restart when Spring Cloud's refresh changes {@code ratelimit.*} (with
 * {@code spring-cloud-context} on the class path); an application without Spring Cloud behaves as before.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
public final class RateLimitRefreshAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LimitsRefresh rateLimitLimitsRefresh(
            Environment environment,
            RateLimitProperties properties,
            ObjectProvider<Plans> plans,
            ObjectProvider<RefreshableLimits> parts,
            ObjectProvider<DeclaredLimits> declared,
            ObjectProvider<RateLimiter> limiter) {
        return new LimitsRefresh(
                environment,
                properties,
                plans.getIfAvailable(),
                () -> parts.orderedStream().toList(),
                () -> declared.orderedStream().toList(),
                limiter::getIfAvailable);
    }
}
