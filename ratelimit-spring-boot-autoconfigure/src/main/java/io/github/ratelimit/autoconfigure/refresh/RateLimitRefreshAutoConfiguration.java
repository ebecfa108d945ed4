package io.github.ratelimit.autoconfigure.refresh;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.RefreshableLimits;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.PathRules;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.refresh.LimitsRefresh;
import java.util.List;
import java.util.stream.Stream;
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
            ObjectProvider<RefreshableLimits> parts,
            ObjectProvider<PathRules.Applied> filters,
            ObjectProvider<DeclaredLimits> declared,
            ObjectProvider<RateLimiter> limiter) {
        LimitsRefresh limits = new LimitsRefresh(
                plans.getIfAvailable(), () -> declared.orderedStream().toList(), limiter::getIfAvailable);
        return new PropertiesRefresh(limits, environment, properties, () -> Stream.concat(
                        filters.orderedStream().map(RateLimitRefreshAutoConfiguration::rulesOf), parts.orderedStream())
                .toList());
    }

    /** A path-rule filter's part of a refresh: the rules and exclusions of {@code ratelimit.filter}. */
    private static RefreshableLimits rulesOf(PathRules.Applied filter) {
        return (properties, plans) -> {
            RateLimitProperties.Filter rules = properties.getFilter();
            return filter.prepare(rules.isEnabled() ? rules.getRules() : List.of(), rules.getExclude(), plans);
        };
    }
}
