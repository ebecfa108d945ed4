package io.github.ratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.autoconfigure.InvalidFilterRuleFailureAnalyzer;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.support.DefaultConversionService;

/**
 * The gateway auto-configurations alone: each server's side with only that server present, and a limit a route cannot
 * honour failing the start naming its property.
 */
@org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
class RateLimitGatewayAutoConfigurationTests {

    private static final AutoConfigurations LIMITER = AutoConfigurations.of(
            RateLimitRedissonAutoConfiguration.class,
            RateLimitRedisAutoConfiguration.class,
            RateLimitAutoConfiguration.class,
            RateLimitGatewayWebFluxAutoConfiguration.class,
            RateLimitGatewayMvcAutoConfiguration.class);

    private static final String[] PROPERTIES = {
        "spring.data.redis.url=" + SharedRedis.get().url(),
        "ratelimit.key-prefix=gw-ac-" + UUID.randomUUID() + ":",
        "ratelimit.gateway.limits.per-client.limits[0].limit=5",
        "ratelimit.gateway.limits.per-client.limits[0].window=1s"
    };

    /** What the gateway's own auto-configuration gives the limiter: the service that binds a route's arguments. */
    @Configuration(proxyBeanMethods = false)
    static class GatewayServices {
        @Bean
        ConfigurationService configurationService(BeanFactory beans) {
            return new ConfigurationService(beans, DefaultConversionService::new, () -> null);
        }
    }

    @Test
    void onWebFluxWithOnlyTheWebFluxServerTheRouteLimiterIsABean() {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(LIMITER)
                .withUserConfiguration(GatewayServices.class)
                .withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway.server.mvc"))
                .withPropertyValues(PROPERTIES)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(RateLimitRouteLimiter.class);
                    assertThat(context).doesNotHaveBean(MvcRouteLimits.class);
                });
    }

    /** Regression: the startup summary said "0 limits on 0 methods, 0 filter limits" and left the gateway's out. */
    @Test
    void onWebMvcWithOnlyTheWebMvcServerTheFilterFunctionIsKnownToRoutes(
            org.springframework.boot.test.system.CapturedOutput output) {
        new WebApplicationContextRunner()
                .withConfiguration(LIMITER)
                .withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway.filter"))
                .withPropertyValues(PROPERTIES)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context).hasSingleBean(MvcRouteLimits.class);
                            assertThat(context).hasSingleBean(RateLimitFilterFunctions.FilterSupplier.class);
                            assertThat(context).doesNotHaveBean(RateLimitRouteLimiter.class);
                            assertThat(context.getBean(MvcRouteLimits.class).names(" per-client "))
                                    .containsExactly("per-client");
                            assertThat(context
                                            .getBeanProvider(io.github.ratelimit.spring.definition.DeclaredLimits.class)
                                            .stream()
                                            .flatMap(source -> source.declaredLimits().stream())
                                            .map(declared -> declared.limit().name()))
                                    .contains("per-client");
                            assertThat(output).contains("0 filter limits, 1 gateway limits;");
                        });
    }

    /** The module owns its setting: the IDE's help of it comes from this module's metadata, and says what it takes. */
    @Test
    void theModulesSettingIsDescribedForTheIde() {
        assertThat(io.github.ratelimit.fixtures.SettingsMetadata.description("ratelimit.gateway.limits"))
                .contains("Limits routes name, by name", "KeyResolver");
    }

    @Test
    void aGatewayLimitThatCountsFailuresFailsTheStartNamingItsProperty() {
        new WebApplicationContextRunner()
                .withConfiguration(LIMITER)
                .withPropertyValues(PROPERTIES)
                .withPropertyValues("ratelimit.gateway.limits.per-client.count-on=failure")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidFilterRuleException.class)
                        .hasMessageContaining("ratelimit.gateway.limits.per-client.count-on")
                        .hasMessageContaining("path rule")
                        .satisfies(failure -> assertThat(new InvalidFilterRuleFailureAnalyzer()
                                        .analyze(failure)
                                        .getAction())
                                .contains("A gateway limit needs")
                                .doesNotContain("A rule needs paths")));
    }

    /**
     * Regression: a WebFlux route without a key-resolver answered 403 to every anonymous request (the gateway's default
     * resolver is the principal's name, and an empty key is denied before the limiter is asked), and nothing said so.
     * The start now warns, naming the route and the property.
     */
    @Test
    void aWebFluxRouteWithoutAKeyResolverIsWarnedAbout(org.springframework.boot.test.system.CapturedOutput output) {
        org.springframework.cloud.gateway.config.GatewayProperties gateway =
                new org.springframework.cloud.gateway.config.GatewayProperties();
        org.springframework.cloud.gateway.route.RouteDefinition route =
                new org.springframework.cloud.gateway.route.RouteDefinition("api=http://localhost:1,Path=/api/**");
        route.setFilters(java.util.List.of(new org.springframework.cloud.gateway.filter.FilterDefinition(
                "RequestRateLimiter=ratelimit.limits=per-client")));
        route.getFilters().get(0).setArgs(java.util.Map.of("ratelimit.limits", "per-client"));
        gateway.setRoutes(java.util.List.of(route));
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(LIMITER)
                .withUserConfiguration(GatewayServices.class)
                .withBean(org.springframework.cloud.gateway.config.GatewayProperties.class, () -> gateway)
                .withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway.server.mvc"))
                .withPropertyValues(PROPERTIES)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output)
                            .contains("route 'api' applies RequestRateLimiter without a key-resolver")
                            .contains("spring.cloud.gateway.server.webflux.routes[0].filters[0].args.key-resolver")
                            .contains("403");
                });
    }
}
