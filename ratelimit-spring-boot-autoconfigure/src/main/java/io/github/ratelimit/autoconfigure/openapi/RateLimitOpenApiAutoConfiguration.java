package io.github.ratelimit.autoconfigure.openapi;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration;
import io.github.ratelimit.autoconfigure.reactive.RateLimitReactiveWebAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.spring.aop.AdvisorDeclarations;
import io.github.ratelimit.spring.definition.PathRules;
import io.github.ratelimit.spring.openapi.RateLimitOpenApi;
import org.springdoc.core.customizers.GlobalOpenApiCustomizer;
import org.springdoc.core.customizers.GlobalOperationCustomizer;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Adds what the starter can answer to the application's OpenAPI description, when springdoc is on the classpath:
 * {@code ratelimit.openapi.enabled=false} leaves the description as springdoc makes it. With rate limits switched off
 * ({@code ratelimit.enabled=false}), tokens and locks, which keep working, are still described.
 */
@AutoConfiguration(
        after = {
            RateLimitAutoConfiguration.class,
            RateLimitAopAutoConfiguration.class,
            RateLimitWebAutoConfiguration.class,
            RateLimitReactiveWebAutoConfiguration.class
        })
@ConditionalOnClass(GlobalOpenApiCustomizer.class)
public final class RateLimitOpenApiAutoConfiguration {

    static {
        // the starter's argument resolvers fill these parameters, never the client: springdoc leaves them out
        SpringDocUtils.getConfig().addRequestWrapperToIgnore(LockHandle.class, TokenConsumption.class);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "ratelimit.openapi.enabled", matchIfMissing = true)
    RateLimitOpenApi rateLimitOpenApi(
            ObjectProvider<AdvisorDeclarations> declarations,
            ObjectProvider<PathRules.Applied> filters,
            RateLimitProperties properties) {
        return new RateLimitOpenApi(
                declarations::getIfAvailable,
                () -> filters.orderedStream().map(PathRules.Applied::pathRules).toList(),
                properties.getFailureMode());
    }

    @Bean
    @ConditionalOnMissingBean(name = "rateLimitOpenApiOperations")
    @ConditionalOnBooleanProperty(name = "ratelimit.openapi.enabled", matchIfMissing = true)
    GlobalOperationCustomizer rateLimitOpenApiOperations(RateLimitOpenApi openApi) {
        return openApi.operations();
    }

    @Bean
    @ConditionalOnMissingBean(name = "rateLimitOpenApiPathRules")
    @ConditionalOnBooleanProperty(name = "ratelimit.openapi.enabled", matchIfMissing = true)
    GlobalOpenApiCustomizer rateLimitOpenApiPathRules(RateLimitOpenApi openApi) {
        return openApi.pathRules();
    }
}
