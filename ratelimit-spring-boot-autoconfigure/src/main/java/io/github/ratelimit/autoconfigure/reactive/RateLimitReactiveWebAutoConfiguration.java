package io.github.ratelimit.autoconfigure.reactive;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.RefreshPart;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.PathRules;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.reactive.RateLimitWebExceptionHandler;
import io.github.ratelimit.spring.reactive.RateLimitWebFilter;
import io.github.ratelimit.spring.web.ClientAddresses;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.reactive.DispatcherHandler;

/**
 * WebFlux support, the reactive sibling of {@link RateLimitWebAutoConfiguration}: a web filter that applies the path
 * rules and hands every request's caller to the interceptors through the Reactor context, the same answers for
 * refusals (429, 400, 404, 409, 503), and the handler parameters of {@code @SingleUse} and {@code @Locked}. The rules
 * apply only while rate limits are on; the rest whatever {@code ratelimit.enabled} says.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(DispatcherHandler.class)
public final class RateLimitReactiveWebAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ClientAddresses rateLimitClientAddresses(RateLimitProperties properties) {
        return new ClientAddresses(
                properties.getClient().getTrustedProxies(),
                properties.getClient().getIpv6PrefixLength());
    }

    @Bean
    @ConditionalOnMissingBean
    RateLimitWebFilter rateLimitWebFilter(
            RateLimitProperties properties,
            ObjectProvider<RateLimitDecisions> decisions,
            ObjectProvider<Plans> plans,
            ClientAddresses clients,
            ObjectProvider<KeyResolvers> keys,
            ObjectProvider<io.github.ratelimit.core.concurrency.ConcurrencyLimiter> slots) {
        RateLimitProperties.Filter filter = properties.getFilter();
        PathRules.Specs rules = filter.specs();
        return new RateLimitWebFilter(
                rules.rules(),
                rules.excludedPaths(),
                decisions.getIfAvailable(),
                plans.getIfAvailable(() -> Plans.NONE),
                clients,
                properties.getHeaders().isAllPolicies(),
                filter.getOrder(),
                keys.getIfAvailable(() -> KeyResolvers.BUILT_IN),
                slots::getIfUnique);
    }

    /** A refresh compiles the filter the rules and exclusions of {@code ratelimit.filter}. */
    @Bean
    @ConditionalOnBean(RateLimitWebFilter.class)
    RefreshPart<PathRules.Specs> rateLimitFilterRefresh(RateLimitWebFilter filter) {
        return new RefreshPart<>(
                filter,
                settings -> settings.get(RateLimitProperties.class).getFilter().specs());
    }

    @Bean
    @ConditionalOnMissingBean
    RateLimitWebExceptionHandler rateLimitWebExceptionHandler(
            RateLimitProperties properties, ObjectProvider<ServerCodecConfigurer> codecs) {
        return new RateLimitWebExceptionHandler(
                codecs.getIfAvailable(ServerCodecConfigurer::create).getWriters(),
                properties.getHeaders().isAllPolicies());
    }
}
