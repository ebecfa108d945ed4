package io.github.ratelimit.autoconfigure.endpoint;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import io.github.ratelimit.autoconfigure.internal.DeclaredLimits;
import io.github.ratelimit.autoconfigure.internal.Plans;
import io.github.ratelimit.core.RateLimiter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code ratelimits} actuator endpoint, when exposed. */
@AutoConfiguration(after = {RateLimitAutoConfiguration.class, RateLimitWebAutoConfiguration.class})
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnClass(Endpoint.class)
public final class RateLimitEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RateLimiter.class)
    @ConditionalOnAvailableEndpoint(RateLimitsEndpoint.class)
    RateLimitsEndpoint rateLimitsEndpoint(
            ObjectProvider<DeclaredLimits> sources,
            RateLimiter limiter,
            RateLimitProperties properties,
            ObjectProvider<Plans> plans,
            ObjectProvider<io.github.ratelimit.core.ClientBlocks> blocks,
            ObjectProvider<io.github.ratelimit.core.LimitOverrides> overrides) {
        io.github.ratelimit.core.ClientBlocks operatorBlocks = blocks.getIfAvailable();
        io.github.ratelimit.core.LimitOverrides operatorOverrides = overrides.getIfAvailable();
        return new RateLimitsEndpoint(
                sources,
                limiter,
                properties.getActuator().isResetEnabled(),
                plans.getIfAvailable(() -> Plans.NONE),
                () -> operatorBlocks,
                () -> operatorOverrides,
                properties.getActuator().isWriteEnabled(),
                properties.getActuator().getMaxBlock());
    }
}
