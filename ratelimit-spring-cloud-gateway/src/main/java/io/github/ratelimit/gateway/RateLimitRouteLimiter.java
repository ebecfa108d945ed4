package io.github.ratelimit.gateway;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.call.CallRunner;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.http.server.reactive.ServerHttpRequest;
import reactor.core.publisher.Mono;

/**
 * The {@code RateLimiter} of Spring Cloud Gateway's {@code RequestRateLimiter} filter (server-webflux): decides a
 * route's requests by the limits of {@code ratelimit.gateway.limits} the route names in its {@code ratelimit.limits}
 * argument, in one call to Redis, with the failure modes, local limits, blocks, overrides and plans of every other
 * limit. The route's {@code KeyResolver} supplies the key a limit counts when it names none ({@code route}).
 *
 * <p>A refusal is the same answer as everywhere else in the application: 429 with the RateLimit fields,
 * {@code Retry-After} and a problem body (503 for a closed failure mode; 400 for a key the request does not carry).
 * The filter's {@code status-code} argument does not apply to it.
 */
public final class RateLimitRouteLimiter extends AbstractRateLimiter<RateLimitRouteLimiter.Config> {

    /** The prefix of this limiter's arguments on a route: {@code ratelimit.limits}. */
    public static final String CONFIGURATION_PROPERTY_NAME = "ratelimit";

    private static final Response ALLOWED = new Response(true, Map.of());

    private final GatewayLimits limits;

    /** The limits this decides by, for the startup summary and the {@code ratelimits} endpoint. */
    GatewayLimits limits() {
        return limits;
    }

    RateLimitRouteLimiter(GatewayLimits limits, ConfigurationService configurationService) {
        super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
        this.limits = limits;
    }

    /** The names of a route's list, checked (for the startup check of routes in properties). */
    void names(String list, String where) {
        limits.names(list, where);
    }

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        Config config = getConfig().get(routeId);
        if (config == null || config.getLimits() == null) {
            return Mono.error(new IllegalStateException("Route '" + routeId + "' applies RequestRateLimiter with "
                    + getClass().getSimpleName() + " but names no limit: give it the argument ratelimit.limits"));
        }
        List<String> names = config.names;
        if (names == null) {
            // checked once per route (routes in properties were checked at startup too); a route added while running
            // that names an unknown limit fails its own requests saying so, the other routes are not affected
            try {
                names = limits.names(
                        java.util.Objects.requireNonNull(config.getLimits()),
                        "route '" + routeId + "' (ratelimit.limits)");
            } catch (IllegalArgumentException e) {
                return Mono.error(e);
            }
            config.names = names;
        }
        List<String> named = names;
        RateLimitDecisions decisions = limits.decisions();
        if (decisions == null) {
            return Mono.just(ALLOWED);
        }
        return Mono.deferContextual(context -> {
            CallerContext caller = new RouteCaller(
                    java.util.Objects.requireNonNull(context.getOrDefault(CallerContext.class, CallerContext.NONE)),
                    id);
            ServerHttpRequest request = caller.request() instanceof ServerHttpRequest r ? r : null;
            String method = request == null ? "GET" : request.getMethod().name();
            String path = request == null
                    ? "/"
                    : request.getPath().pathWithinApplication().value();
            return CallRunner.mono(
                    new CallRunner.Start(
                            decisions,
                            caller,
                            view -> limits.call(named, method, path, view),
                            RateLimitDecisions.After.DEFAULT),
                    end -> Mono.just(ALLOWED));
        });
    }

    /** What a route gives this limiter: {@code ratelimit.limits}, the names of its limits, separated by commas. */
    public static class Config {

        private @Nullable String limits;
        private volatile @Nullable List<String> names;

        public @Nullable String getLimits() {
            return limits;
        }

        public void setLimits(String limits) {
            this.limits = limits;
            this.names = null;
        }
    }
}
