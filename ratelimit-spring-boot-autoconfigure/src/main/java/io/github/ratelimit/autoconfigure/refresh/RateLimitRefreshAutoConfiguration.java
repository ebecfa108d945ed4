package io.github.ratelimit.autoconfigure.refresh;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.RefreshPart;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.refresh.LimitsRefresh;
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
    PropertiesRefresh rateLimitLimitsRefresh(
            Environment environment,
            RateLimitProperties properties,
            ObjectProvider<Plans> plans,
            ObjectProvider<RefreshPart<?>> parts,
            ObjectProvider<DeclaredLimits> declared,
            ObjectProvider<RateLimiter> limiter) {
        LimitsRefresh limits = new LimitsRefresh(
                plans.getIfAvailable(), () -> declared.orderedStream().toList(), limiter::getIfAvailable);
        return new PropertiesRefresh(
                limits, environment, properties, () -> parts.orderedStream().toList());
    }
}
