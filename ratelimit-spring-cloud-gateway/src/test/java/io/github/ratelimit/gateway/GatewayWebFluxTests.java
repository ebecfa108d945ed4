package io.github.ratelimit.gateway;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Spring Cloud Gateway server-webflux: {@code RequestRateLimiter} with {@link RateLimitRouteLimiter}. */
class GatewayWebFluxTests extends GatewayContract {

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Gateway {

        /** The route's key: the X-Client header. */
        @Bean
        KeyResolver clientKey() {
            return GatewayFixture.clientHeader();
        }
    }

    @Override
    WebApplicationType type() {
        return WebApplicationType.REACTIVE;
    }

    @Override
    Class<?> application() {
        return Gateway.class;
    }

    @Override
    Map<String, Object> perClientKey() {
        return Map.of();
    }

    @Override
    Map<String, Object> routes(String upstream, String limits) {
        String route = "spring.cloud.gateway.server.webflux.routes";
        Map<String, Object> routes = new LinkedHashMap<>();
        // only the WebFlux server of the gateway: both are on this module's test classpath
        routes.put(
                "spring.autoconfigure.exclude",
                String.join(
                        ",",
                        "org.springframework.cloud.gateway.server.mvc.GatewayServerMvcAutoConfiguration",
                        "org.springframework.cloud.gateway.server.mvc.filter.FilterAutoConfiguration",
                        "org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctionAutoConfiguration",
                        "org.springframework.cloud.gateway.server.mvc.predicate.PredicateAutoConfiguration"));
        routes.put(route + "[0].id", "api");
        routes.put(route + "[0].uri", upstream);
        routes.put(route + "[0].predicates[0]", "Path=/api/**");
        routes.put(route + "[0].filters[0].name", "RequestRateLimiter");
        routes.put(route + "[0].filters[0].args[key-resolver]", "#{@clientKey}");
        routes.put(route + "[0].filters[0].args[ratelimit.limits]", limits);
        routes.put(route + "[1].id", "ruled");
        routes.put(route + "[1].uri", upstream);
        routes.put(route + "[1].predicates[0]", "Path=/ruled/**");
        return routes;
    }
}
