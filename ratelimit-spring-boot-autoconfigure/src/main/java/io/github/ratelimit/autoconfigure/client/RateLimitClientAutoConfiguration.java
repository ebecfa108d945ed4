package io.github.ratelimit.autoconfigure.client;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.RefreshPart;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.client.OutboundClients;
import io.github.ratelimit.spring.client.OutboundLimits;
import io.github.ratelimit.spring.definition.ClientRuleSpec;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Outbound limits ({@code ratelimit.client.rules}) on every {@code RestClient}, {@code RestTemplate} and {@code WebClient}
 * built from Boot's builders (and the HTTP interface clients on them; not on one built by hand), with Spring's web module
 * present; nothing while rate limits are off ({@code ratelimit.enabled=false}).
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.http.HttpHeaders")
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
public final class RateLimitClientAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    OutboundLimits rateLimitOutboundLimits(
            RateLimitProperties properties,
            ObjectProvider<RateLimitDecisions> decisions,
            ObjectProvider<RateLimiter> limiter,
            ObjectProvider<ConcurrencyLimiter> slots) {
        RateLimitProperties.Client client = properties.getClient();
        return new OutboundLimits(
                client.getRules(), client.getMaxPause(), decisions::getObject, limiter::getObject, slots::getIfUnique);
    }

    /** A refresh compiles the outbound limits the rules of {@code ratelimit.client.rules}. */
    @Bean
    @ConditionalOnBean(OutboundLimits.class)
    RefreshPart<List<ClientRuleSpec>> rateLimitOutboundRefresh(OutboundLimits limits) {
        return new RefreshPart<>(
                limits,
                settings -> settings.get(RateLimitProperties.class).getClient().getRules());
    }

    /** {@code ratelimit.client.pauses}: outbound rules paused by this instance after an upstream's Retry-After. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static final class Metered {

        @Bean
        SmartInitializingSingleton rateLimitClientPauseMeter(
                OutboundLimits limits, ObjectProvider<MeterRegistry> registries) {
            return () -> {
                if (!limits.isEmpty()) {
                    registries.orderedStream().forEach(registry -> FunctionCounter.builder(
                                    "ratelimit.client.pauses", limits, OutboundLimits::pauses)
                            .description("Outbound rules paused by this instance after an upstream's Retry-After")
                            .register(registry));
                }
            };
        }
    }

    /** The blocking clients. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientCustomizer.class)
    static final class Blocking {

        @Bean
        RestClientCustomizer rateLimitRestClientCustomizer(OutboundLimits limits) {
            return builder -> {
                if (!limits.isEmpty()) {
                    builder.requestInterceptor(new OutboundClients.Blocking(limits));
                }
            };
        }

        @Bean
        RestTemplateCustomizer rateLimitRestTemplateCustomizer(OutboundLimits limits) {
            return template -> {
                if (!limits.isEmpty()) {
                    template.getInterceptors().add(new OutboundClients.Blocking(limits));
                }
            };
        }
    }

    /** The non-blocking client. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({WebClientCustomizer.class, org.springframework.web.reactive.function.client.WebClient.class})
    static final class NonBlocking {

        @Bean
        WebClientCustomizer rateLimitWebClientCustomizer(OutboundLimits limits) {
            return builder -> {
                if (!limits.isEmpty()) {
                    builder.filter(new OutboundClients.NonBlocking(limits));
                }
            };
        }
    }
}
