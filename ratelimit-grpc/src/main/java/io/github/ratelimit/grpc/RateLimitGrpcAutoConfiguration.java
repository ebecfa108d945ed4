package io.github.ratelimit.grpc;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.RefreshPart;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.client.OutboundLimits;
import io.github.ratelimit.spring.definition.FilterRuleSpec;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.Plans;
import io.grpc.ServerInterceptor;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.grpc.server.exception.GrpcExceptionHandler;

/**
 * gRPC services: the {@link RateLimitServerInterceptor} of {@code ratelimit.grpc.rules} (while rate limits are on),
 * which also answers the annotations' refusals with gRPC statuses. With Spring gRPC it is a global interceptor of every service, and a
 * {@link GrpcExceptionHandler} answers the same refusals for Spring gRPC's own exception handling; with another gRPC
 * server, add the interceptor bean to it.
 */
@AutoConfiguration(
        after = RateLimitAutoConfiguration.class,
        afterName = "io.github.ratelimit.autoconfigure.client.RateLimitClientAutoConfiguration")
@EnableConfigurationProperties({RateLimitProperties.class, RateLimitGrpcProperties.class})
@ConditionalOnClass(ServerInterceptor.class)
public final class RateLimitGrpcAutoConfiguration {

    /** The rules' interceptor; a global interceptor of every service under Spring gRPC (its class says so). */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RateLimitDecisions.class)
    RateLimitServerInterceptor rateLimitServerInterceptor(
            RateLimitProperties properties,
            RateLimitGrpcProperties grpc,
            RateLimitDecisions decisions,
            ObjectProvider<Plans> plans,
            KeyResolvers keys) {
        return new RateLimitServerInterceptor(
                grpc.getRules(),
                decisions,
                plans.getIfAvailable(() -> Plans.NONE),
                properties.getHeaders().isAllPolicies(),
                keys);
    }

    /** A refresh compiles the interceptor the rules of {@code ratelimit.grpc.rules}. */
    @Bean
    @ConditionalOnBean(RateLimitServerInterceptor.class)
    RefreshPart<List<FilterRuleSpec>> rateLimitGrpcRefresh(RateLimitServerInterceptor interceptor) {
        return new RefreshPart<>(interceptor, settings -> settings.get(RateLimitGrpcProperties.class)
                .getRules());
    }

    /**
     * Outbound rules on the channels the application makes: a global interceptor of every channel under Spring gRPC
     * (its class says so); with another client, add it to the channel.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(OutboundLimits.class)
    RateLimitClientInterceptor rateLimitClientInterceptor(OutboundLimits limits) {
        return new RateLimitClientInterceptor(limits);
    }

    /** With Spring gRPC: its exception handling answers the refusals as the interceptor does. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(GrpcExceptionHandler.class)
    static final class SpringGrpc {

        @Bean
        @ConditionalOnMissingBean(name = "rateLimitGrpcExceptionHandler")
        GrpcExceptionHandler rateLimitGrpcExceptionHandler(RateLimitProperties properties) {
            boolean allPolicies = properties.getHeaders().isAllPolicies();
            return error -> GrpcRefusals.of(error, allPolicies);
        }
    }
}
