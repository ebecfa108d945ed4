package io.github.ratelimit.gateway;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.WebApplicationType;

/** Spring Cloud Gateway server-webflux: {@code RequestRateLimiter} with {@link RateLimitRouteLimiter}. */
class GatewayWebFluxTests extends GatewayContract {

    @Override
    WebApplicationType type() {
        return WebApplicationType.REACTIVE;
    }

    @Override
    Class<?> application() {
        return WebFluxGateway.class;
    }

    @Override
    Map<String, Object> perClientKey() {
        return Map.of();
    }

    @Override
    Map<String, Object> routes(String upstream, String limits) {
        String route = "spring.cloud.gateway.server.webflux.routes";
        Map<String, Object> routes = new LinkedHashMap<>();
        routes.putAll(ONLY_WEBFLUX);
        routes.put(route + "[0].id", "api");
        routes.put(route + "[0].uri", upstream);
        routes.put(route + "[0].predicates[0]", "Path=/api/**");
        routes.put(route + "[0].filters[0].name", "RequestRateLimiter");
        routes.put(route + "[0].filters[0].args[key-resolver]", "#{@userKey}");
        routes.put(route + "[0].filters[0].args[ratelimit.limits]", limits);
        routes.put(route + "[1].id", "ruled");
        routes.put(route + "[1].uri", upstream);
        routes.put(route + "[1].predicates[0]", "Path=/ruled/**");
        return routes;
    }
}
