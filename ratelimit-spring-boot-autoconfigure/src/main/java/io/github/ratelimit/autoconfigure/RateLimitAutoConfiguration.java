package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.annotation.RetryAdvice;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.KeyResolver;
import io.github.ratelimit.core.PlanSource;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.decision.Exemptions;
import io.github.ratelimit.decision.Fallbacks;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.wiring.LiveInstances;
import io.github.ratelimit.spring.wiring.RateLimitListeners;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.IntSupplier;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * What every integration shares: the properties, the key resolvers, the listeners' wiring and, unless
 * {@code ratelimit.enabled=false}, the one decision flow ({@link RateLimitDecisions}) on the SPI beans (the Redis ones
 * of {@code RateLimitRedisAutoConfiguration}, or the application's). With rate limits off, a {@link RateLimiter} that
 * admits every call stands in, so that nothing an application injects goes missing; tokens and locks are never
 * switched off with them. The annotations, the web filters and the outbound clients each have their own
 * auto-configuration.
 */
@AutoConfiguration
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitAutoConfiguration {

    /** Fails the start on a {@code ratelimit.*} property no settings class takes (see {@link UnknownSettingsCheck}). */
    @Bean
    static UnknownSettingsCheck rateLimitUnknownSettingsCheck() {
        return new UnknownSettingsCheck();
    }

    /** Adds the listener beans (metrics, observations, the application's) to each bean that publishes events. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RateLimitListeners rateLimitListeners(ObjectProvider<RateLimitListener> listeners) {
        return new RateLimitListeners(listeners);
    }

    /** Warns at startup when the servlet container rewrites the client address before rate limits see it. */
    @Bean
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static ForwardedHeadersCheck rateLimitForwardedHeadersCheck(Environment environment) {
        return new ForwardedHeadersCheck(environment);
    }

    /** Warns at startup when the reactive server rewrites the client address before rate limits see it. */
    @Bean
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    static ForwardedHeadersCheck rateLimitReactiveForwardedHeadersCheck(Environment environment) {
        return new ForwardedHeadersCheck(environment, true);
    }

    /** The kinds of key annotations and rules may name: the built-in ones and the application's resolver beans. */
    @Bean
    KeyResolvers rateLimitKeyResolvers(ListableBeanFactory beans) {
        return new KeyResolvers(beans.getBeansOfType(KeyResolver.class));
    }

    /** Rate limits on Redis and the interception of {@code @RateLimited} methods. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
    static final class Enabled {

        @Bean
        Fallbacks rateLimitFallbacks() {
            return new Fallbacks();
        }

        @Bean
        @ConditionalOnMissingBean
        Plans rateLimitPlans(RateLimitProperties properties, ObjectProvider<PlanSource> planSource) {
            return new Plans(properties.getPlans().compiled(), planSource::getIfAvailable);
        }

        @Bean
        RateLimitDecisions rateLimitDecisions(
                ObjectProvider<RateLimiter> limiter,
                RateLimitProperties properties,
                Fallbacks fallbacks,
                ObjectProvider<LiveInstances> instances,
                ObjectProvider<io.github.ratelimit.core.ClientBlocks> blocks,
                ObjectProvider<io.github.ratelimit.core.LimitOverrides> overrides) {
            RateLimitProperties.LocalLimitSettings local = properties.getLocalLimits();
            RateLimitProperties.Exempt exempt = properties.getExempt();
            io.github.ratelimit.core.ClientBlocks operatorBlocks = blocks.getIfAvailable();
            io.github.ratelimit.core.LimitOverrides operatorOverrides = overrides.getIfAvailable();
            LiveInstances counted = instances.getIfAvailable();
            IntSupplier live = counted != null ? counted::count : local::getInstances;
            return RateLimitDecisions.builder(limiter::getObject)
                    .allShadow(properties::isShadow)
                    .failureMode(properties::getFailureMode)
                    .staggeredByDefault(() -> properties.getRetryAdvice().getDefault() == RetryAdvice.STAGGERED)
                    .fallbacks(fallbacks)
                    .localLimits(local.getMaxEntries(), live)
                    .exemptions(Exemptions.of(exempt.getIps(), exempt.getPrincipals(), exempt.getHeaders()))
                    // resolved now: a lookup in the bean factory on a call could park an event loop on its lock
                    .blocks(() -> operatorBlocks)
                    .overrides(() -> operatorOverrides)
                    .build();
        }

        /** The plans of {@code ratelimit.plans.customers}; an application's own source replaces it. */
        @Bean
        @ConditionalOnMissingBean(PlanSource.class)
        ConfiguredCustomers rateLimitPlanSource(RateLimitProperties properties) {
            return new ConfiguredCustomers(properties.getPlans().getCustomers());
        }

        /** A refresh replaces the customers' plans. */
        @Bean
        @ConditionalOnBean(ConfiguredCustomers.class)
        RefreshPart<Map<String, String>> rateLimitCustomersRefresh(ConfiguredCustomers customers) {
            return new RefreshPart<>(customers, settings -> settings.get(RateLimitProperties.class)
                    .getPlans()
                    .getCustomers());
        }
    }

    /** {@code ratelimit.enabled=false}: a limiter that admits every call without asking Redis. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "ratelimit.enabled", havingValue = false)
    static final class Disabled {

        @Bean
        @ConditionalOnMissingBean(RateLimiter.class)
        RateLimiter rateLimiter() {
            return requests -> new Decision(
                    true,
                    requests.stream()
                            .map(r -> new LimitOutcome(r, true, r.limit().ceiling(), Duration.ZERO, Duration.ZERO))
                            .toList(),
                    Instant.now());
        }
    }
}
