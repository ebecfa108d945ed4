package io.github.ratelimit.autoconfigure.usage;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.core.LimitOverrides;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.spring.definition.ClientLimits;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.usage.RateLimitUsage;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** {@link RateLimitUsage}: customers' use of their limits, credits and resets, for application code. */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
public final class RateLimitUsageAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RateLimiter.class)
    RateLimitUsage rateLimitUsage(
            RateLimiter limiter,
            ObjectProvider<DeclaredLimits> declared,
            ObjectProvider<Plans> plans,
            ObjectProvider<LimitOverrides> overrides,
            RateLimitProperties properties) {
        if (!properties.isEnabled()) {
            return RateLimitUsage.off(limiter); // the bean stays, so that code showing quotas keeps working
        }
        ClientLimits clients = new ClientLimits(
                () -> declared.stream()
                        .flatMap(source -> source.declaredLimits().stream())
                        .toList(),
                plans.getIfAvailable(() -> Plans.NONE),
                overrides::getIfAvailable);
        return new RateLimitUsage(clients, limiter);
    }
}
