package io.github.ratelimit.graphql;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.RefreshPart;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.Plans;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.graphql.execution.DataFetcherExceptionResolver;
import org.springframework.graphql.server.WebGraphQlInterceptor;

/**
 * Spring for GraphQL: {@link GraphQlRefusals}, a {@link DataFetcherExceptionResolver} bean, which Spring Boot's GraphQL
 * auto-configuration hands to the schema's execution, so a refused field is a GraphQL error of that field; and
 * {@link GraphQlOperationLimits}, an interceptor of GraphQL over HTTP that Spring Boot adds to its handler, for the
 * operations' rules.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@EnableConfigurationProperties({RateLimitProperties.class, RateLimitGraphQlProperties.class})
@ConditionalOnClass(DataFetcherExceptionResolver.class)
public final class RateLimitGraphQlAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    GraphQlRefusals rateLimitGraphQlRefusals(RateLimitProperties properties) {
        return new GraphQlRefusals(properties.getHeaders().isAllPolicies());
    }

    /** The rules of {@code ratelimit.graphql.rules}, decided per operation before it runs (GraphQL over HTTP). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(WebGraphQlInterceptor.class)
    static final class Operations {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(RateLimitDecisions.class)
        GraphQlOperationLimits rateLimitGraphQlOperationLimits(
                RateLimitProperties properties,
                RateLimitGraphQlProperties graphql,
                RateLimitDecisions decisions,
                ObjectProvider<Plans> plans,
                KeyResolvers keys) {
            return new GraphQlOperationLimits(
                    graphql.getRules(),
                    graphql.getCost(),
                    decisions,
                    plans.getIfAvailable(() -> Plans.NONE),
                    properties.getHeaders().isAllPolicies(),
                    keys);
        }

        /** A refresh compiles the interceptor the rules and cost of {@code ratelimit.graphql}. */
        @Bean
        @ConditionalOnBean(GraphQlOperationLimits.class)
        RefreshPart<RateLimitGraphQlProperties> rateLimitGraphQlRefresh(GraphQlOperationLimits limits) {
            return new RefreshPart<>(limits, settings -> settings.get(RateLimitGraphQlProperties.class));
        }
    }
}
