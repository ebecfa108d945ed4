package io.github.ratelimit.graphql;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.graphql.execution.DataFetcherExceptionResolver;

/**
 * Spring for GraphQL: {@link GraphQlRefusals}, a {@link DataFetcherExceptionResolver} bean, which Spring Boot's GraphQL
 * auto-configuration hands to the schema's execution, so a refused field is a GraphQL error of that field.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@EnableConfigurationProperties(RateLimitProperties.class)
@ConditionalOnClass(DataFetcherExceptionResolver.class)
public final class RateLimitGraphQlAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    GraphQlRefusals rateLimitGraphQlRefusals(RateLimitProperties properties) {
        return new GraphQlRefusals(properties.getHeaders().isAllPolicies());
    }
}
