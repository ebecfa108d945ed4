package io.github.ratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;

/** Spring Cloud Gateway server-webmvc: the {@code RateLimits} filter function. */
class GatewayMvcTests extends GatewayContract {

    @Override
    WebApplicationType type() {
        return WebApplicationType.SERVLET;
    }

    @Override
    Class<?> application() {
        return MvcGateway.class;
    }

    @Override
    Map<String, Object> perClientKey() {
        return Map.of("ratelimit.gateway.limits.per-client.key", "header:X-Client");
    }

    /** Whether the route names its filter in the shortcut form, {@code RateLimits=per-client}, as docs/stacks.md shows it. */
    private boolean shortcut;

    /**
     * Regression: the shortcut form docs/stacks.md and the filter's Javadoc show failed the start ("Unable to find
     * operation interface HandlerFilterFunction for rateLimits with args {_genkey_0=per-client}").
     */
    @Test
    void theShortcutFormOfTheFilterLimitsTheRoute() throws Exception {
        shortcut = true;
        int port = port(instance("gw-" + UUID.randomUUID() + ":", redis.url(), "per-client"));
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            statuses.add(Upstream.get(port, "/api/items", "carol").statusCode());
        }
        assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429, 429);
    }

    @Override
    Map<String, Object> routes(String upstream, String limits) {
        String route = "spring.cloud.gateway.server.webmvc.routes";
        Map<String, Object> routes = new java.util.LinkedHashMap<>();
        routes.putAll(ONLY_MVC);
        routes.put(route + "[0].id", "api");
        routes.put(route + "[0].uri", upstream);
        routes.put(route + "[0].predicates[0]", "Path=/api/**");
        if (shortcut) {
            routes.put(route + "[0].filters[0]", "RateLimits=" + limits);
            return routes;
        }
        routes.put(route + "[0].filters[0].name", "RateLimits");
        routes.put(route + "[0].filters[0].args[limits]", limits);
        routes.put(route + "[1].id", "ruled");
        routes.put(route + "[1].uri", upstream);
        routes.put(route + "[1].predicates[0]", "Path=/ruled/**");
        return routes;
    }
}
