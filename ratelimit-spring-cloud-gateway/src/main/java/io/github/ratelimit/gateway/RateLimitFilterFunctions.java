package io.github.ratelimit.gateway;

import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
import org.springframework.cloud.gateway.server.mvc.common.Shortcut;
import org.springframework.cloud.gateway.server.mvc.filter.SimpleFilterSupplier;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Filter functions for Spring Cloud Gateway's server-webmvc routes. In YAML:
 *
 * <pre>
 * filters:
 *   - RateLimits=per-client
 * </pre>
 *
 * (one limit; the shortcut form splits its value at commas) or, several limits decided together, {@code - name:
 * RateLimits} with {@code args: {limits: "per-client, per-ip"}};
 * in Java, {@code .filter(RateLimitFilterFunctions.rateLimits("per-client"))}.
 */
public final class RateLimitFilterFunctions {

    private RateLimitFilterFunctions() {}

    /**
     * Decides every request of the route by limits of {@code ratelimit.gateway.limits}, all in one call to Redis.
     *
     * @param limits the names of the limits, separated by commas; checked at startup for routes in properties, on the
     *     first request otherwise
     */
    @Shortcut // maps the shortcut form's one value (RateLimits=per-client) to limits
    public static HandlerFilterFunction<ServerResponse, ServerResponse> rateLimits(String limits) {
        return (request, next) -> MvcUtils.getApplicationContext(request)
                .getBean(MvcRouteLimits.class)
                .filter(limits, request, next);
    }

    /** Makes {@code RateLimits} known to routes in properties. */
    public static class FilterSupplier extends SimpleFilterSupplier {

        public FilterSupplier() {
            super(RateLimitFilterFunctions.class);
        }
    }
}
