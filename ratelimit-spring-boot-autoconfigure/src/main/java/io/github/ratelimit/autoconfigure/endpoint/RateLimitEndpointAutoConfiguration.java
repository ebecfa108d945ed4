package io.github.ratelimit.autoconfigure.endpoint;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.spring.aop.AdvisorDeclarations;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.endpoint.AdaptiveLimitOperations;
import io.github.ratelimit.spring.endpoint.RateLimitOperations;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

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
            ObjectProvider<io.github.ratelimit.core.LimitOverrides> overrides,
            ObjectProvider<io.github.ratelimit.core.locks.LockManager> locks,
            ObjectProvider<AdvisorDeclarations> methods,
            ObjectProvider<ConcurrencyLimiter> concurrency) {
        warnIfUnsecured(
                properties.getActuator(),
                name -> ClassUtils.isPresent(name, RateLimitEndpointAutoConfiguration.class.getClassLoader()));
        io.github.ratelimit.core.ClientBlocks operatorBlocks = blocks.getIfAvailable();
        io.github.ratelimit.core.LimitOverrides operatorOverrides = overrides.getIfAvailable();
        RateLimitOperations operations = new RateLimitOperations(
                sources,
                limiter,
                properties.getActuator().isResetEnabled(),
                plans.getIfAvailable(() -> Plans.NONE),
                () -> operatorBlocks,
                () -> operatorOverrides,
                properties.getActuator().isWriteEnabled(),
                properties.getActuator().getMaxBlock(),
                locks::getIfUnique);
        AdaptiveLimitOperations adaptive = new AdaptiveLimitOperations(
                methods,
                () -> concurrency.getIfUnique() instanceof AdaptiveConcurrencyLimiter store ? store : null,
                properties.getActuator().isWriteEnabled(),
                operations.events());
        return new RateLimitsEndpoint(operations, adaptive);
    }

    private static final org.slf4j.Logger log =
            org.slf4j.LoggerFactory.getLogger(RateLimitEndpointAutoConfiguration.class);

    /** The class whose presence says the application can secure its endpoints (Spring Security's web support). */
    static final String SECURITY = "org.springframework.security.web.SecurityFilterChain";

    static final String REACTIVE_SECURITY = "org.springframework.security.web.server.SecurityWebFilterChain";

    /**
     * One WARN at startup when operators may write (overrides, blocks) or reset counts through the endpoint while
     * nothing on the class path can secure it: whoever reaches the actuator could block any client.
     */
    static boolean warnIfUnsecured(
            RateLimitProperties.Actuator actuator, java.util.function.Predicate<String> present) {
        if (!actuator.isWriteEnabled() && !actuator.isResetEnabled()) {
            return false;
        }
        if (present.test(SECURITY) || present.test(REACTIVE_SECURITY)) {
            return false;
        }
        log.warn(
                "The ratelimits endpoint lets callers {} (ratelimit.actuator.{}=true), and Spring Security is not on"
                        + " the class path: anyone who reaches the actuator can do it. Secure the endpoint (an"
                        + " operator role for POST and DELETE on /actuator/ratelimits/**) or turn the property off.",
                actuator.isWriteEnabled() ? "block clients and override limits" : "reset counts",
                actuator.isWriteEnabled() ? "write-enabled" : "reset-enabled");
        return true;
    }
}
