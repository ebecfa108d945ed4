package io.github.ratelimit.gateway;

import java.util.Map;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Configuration;

/** Spring Cloud Gateway server-webmvc: the {@code RateLimits} filter function. */
class GatewayMvcTests extends GatewayContract {

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Gateway {}

    @Override
    WebApplicationType type() {
        return WebApplicationType.SERVLET;
    }

    @Override
    Class<?> application() {
        return Gateway.class;
    }

    @Override
    Map<String, Object> perClientKey() {
        return Map.of("ratelimit.gateway.limits.per-client.key", "header:X-Client");
    }

    @Override
    Map<String, Object> routes(String upstream, String limits) {
        String route = "spring.cloud.gateway.server.webmvc.routes";
        return Map.of(
                "spring.cloud.gateway.server.webflux.enabled",
                "false",
                route + "[0].id",
                "api",
                route + "[0].uri",
                upstream,
                route + "[0].predicates[0]",
                "Path=/api/**",
                route + "[0].filters[0].name",
                "RateLimits",
                route + "[0].filters[0].args[limits]",
                limits,
                route + "[1].id",
                "ruled",
                route + "[1].uri",
                upstream,
                route + "[1].predicates[0]",
                "Path=/ruled/**");
    }
}
