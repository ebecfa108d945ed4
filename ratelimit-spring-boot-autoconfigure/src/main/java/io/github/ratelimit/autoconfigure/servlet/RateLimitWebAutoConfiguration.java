package io.github.ratelimit.autoconfigure.servlet;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.RefreshPart;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.PathRules;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.servlet.LockExceptionHandler;
import io.github.ratelimit.spring.servlet.RateLimitExceptionHandler;
import io.github.ratelimit.spring.servlet.RateLimitFilter;
import io.github.ratelimit.spring.servlet.RedisUnavailableHandler;
import io.github.ratelimit.spring.servlet.ServletCallerContext;
import io.github.ratelimit.spring.servlet.SingleUseTokenExceptionHandler;
import io.github.ratelimit.spring.web.ClientAddresses;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Servlet support: the caller's identity for keys, RateLimit headers, 429 answers, and problem answers for
 * refused single-use tokens (400/404/409) and busy locks (409). The filter of path rules only while rate limits
 * are on; everything tokens and locks need whatever {@code ratelimit.enabled} says.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
public final class RateLimitWebAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ClientAddresses rateLimitClientAddresses(RateLimitProperties properties) {
        return new ClientAddresses(
                properties.getClient().getTrustedProxies(),
                properties.getClient().getIpv6PrefixLength());
    }

    @Bean
    @ConditionalOnMissingBean(CallerContext.class)
    ServletCallerContext rateLimitCallerContext(ClientAddresses clients, RateLimitProperties properties) {
        return new ServletCallerContext(clients, properties.getHeaders().isAllPolicies());
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
    @ConditionalOnBooleanProperty(name = "ratelimit.filter.enabled", matchIfMissing = true)
    @Conditional(OnFilterRulesCondition.class)
    RateLimitFilter rateLimitFilter(
            RateLimitProperties properties,
            RateLimitDecisions decisions,
            ObjectProvider<Plans> plans,
            ClientAddresses clients,
            @Qualifier("handlerExceptionResolver") ObjectProvider<HandlerExceptionResolver> exceptionResolver,
            KeyResolvers keys,
            ObjectProvider<io.github.ratelimit.core.concurrency.ConcurrencyLimiter> slots) {
        RateLimitProperties.Filter filter = properties.getFilter();
        return new RateLimitFilter(
                filter.getRules(),
                filter.getExclude(),
                decisions,
                plans.getIfAvailable(() -> Plans.NONE),
                clients,
                exceptionResolver::getIfAvailable,
                properties.getHeaders().isAllPolicies(),
                keys,
                slots::getIfUnique);
    }

    /** A refresh compiles the filter the rules and exclusions of {@code ratelimit.filter}. */
    @Bean
    @ConditionalOnBean(RateLimitFilter.class)
    RefreshPart<PathRules.Specs> rateLimitFilterRefresh(RateLimitFilter filter) {
        return new RefreshPart<>(
                filter,
                settings -> settings.get(RateLimitProperties.class).getFilter().specs());
    }

    @Bean
    @ConditionalOnBean(RateLimitFilter.class)
    FilterRegistrationBean<RateLimitFilter> rateLimitFilterRegistration(
            RateLimitFilter filter, RateLimitProperties properties) {
        FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName("rateLimitFilter");
        registration.setOrder(properties.getFilter().getOrder());
        return registration;
    }

    @Bean
    @ConditionalOnMissingBean(RateLimitExceptionHandler.class)
    RateLimitExceptionHandler rateLimitExceptionHandler(RateLimitProperties properties) {
        return new RateLimitExceptionHandler(properties.getHeaders().isAllPolicies());
    }

    @Bean
    @ConditionalOnMissingBean(SingleUseTokenExceptionHandler.class)
    SingleUseTokenExceptionHandler singleUseTokenExceptionHandler() {
        return new SingleUseTokenExceptionHandler();
    }

    @Bean
    @ConditionalOnMissingBean(RedisUnavailableHandler.class)
    RedisUnavailableHandler redisUnavailableHandler() {
        return new RedisUnavailableHandler();
    }

    @Bean
    @ConditionalOnMissingBean(LockExceptionHandler.class)
    LockExceptionHandler lockExceptionHandler() {
        return new LockExceptionHandler();
    }
}
