package io.github.ratelimit.gateway;

import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.RefreshPart;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.definition.FilterRuleSpec;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import io.github.ratelimit.spring.definition.Plans;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cloud.gateway.server.mvc.config.FilterProperties;
import org.springframework.cloud.gateway.server.mvc.config.GatewayMvcProperties;
import org.springframework.cloud.gateway.server.mvc.config.RouteProperties;
import org.springframework.context.annotation.Bean;

/**
 * Spring Cloud Gateway on Web MVC: the {@code RateLimits} filter function ({@link RateLimitFilterFunctions}) for
 * routes, and a startup check of the routes in properties that use it.
 */
@AutoConfiguration(afterName = "io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration")
@ConditionalOnClass(
        name = {
            "org.springframework.cloud.gateway.server.mvc.filter.SimpleFilterSupplier",
            "org.springframework.cloud.gateway.server.mvc.config.GatewayMvcProperties"
        })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBooleanProperty(name = GatewayMvcProperties.PREFIX + ".enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitGatewayProperties.class)
public final class RateLimitGatewayMvcAutoConfiguration {

    static final String FILTER = "RateLimits";

    /** A refresh compiles the gateway's limits those of {@code ratelimit.gateway.limits}. */
    @Bean
    RefreshPart<Map<String, FilterRuleSpec>> rateLimitGatewayRefresh(MvcRouteLimits limits) {
        return new RefreshPart<>(limits.limits(), settings -> settings.get(RateLimitGatewayProperties.class)
                .getLimits());
    }

    /** The gateway's limits among the declared ones: the startup summary counts them, the endpoint lists them. */
    @Bean
    io.github.ratelimit.spring.definition.DeclaredLimits rateLimitGatewayLimits(MvcRouteLimits limits) {
        return limits.limits();
    }

    @Bean
    @ConditionalOnMissingBean
    MvcRouteLimits rateLimitMvcRouteLimits(
            RateLimitProperties properties,
            RateLimitGatewayProperties gateway,
            ListableBeanFactory beans,
            ObjectProvider<Plans> plans,
            ObjectProvider<RateLimitDecisions> decisions,
            ObjectProvider<CallerContext> caller) {
        return new MvcRouteLimits(
                GatewayLimits.of(gateway, false, beans, plans, decisions),
                caller.getIfAvailable(() -> CallerContext.NONE),
                properties.getHeaders().isAllPolicies());
    }

    @Bean
    RateLimitFilterFunctions.FilterSupplier rateLimitFilterFunctionsSupplier() {
        return new RateLimitFilterFunctions.FilterSupplier();
    }

    /** Fails the start for a route in properties whose {@code RateLimits} names a limit there is not, or none. */
    @Bean
    static SmartInitializingSingleton rateLimitMvcRouteCheck(
            ObjectProvider<GatewayMvcProperties> gateway, ObjectProvider<MvcRouteLimits> limits) {
        return () -> {
            GatewayMvcProperties routes = gateway.getIfAvailable();
            MvcRouteLimits ours = limits.getIfAvailable();
            if (routes == null || ours == null) {
                return;
            }
            List<RouteProperties> listed = routes.getRoutes();
            for (int i = 0; i < listed.size(); i++) {
                check(listed.get(i), GatewayMvcProperties.PREFIX + ".routes[" + i + "]", ours);
            }
            routes.getRoutesMap()
                    .forEach((id, route) -> check(route, GatewayMvcProperties.PREFIX + ".routes-map." + id, ours));
        };
    }

    private static void check(RouteProperties route, String property, MvcRouteLimits ours) {
        List<FilterProperties> filters = route.getFilters();
        for (int j = 0; j < filters.size(); j++) {
            FilterProperties filter = filters.get(j);
            if (!FILTER.equalsIgnoreCase(filter.getName())) {
                continue;
            }
            Map<String, String> args = filter.getArgs();
            String list = args.containsKey("limits")
                    ? args.get("limits")
                    : args.size() == 1 ? args.values().iterator().next() : null;
            try {
                ours.names(list == null ? "" : list);
            } catch (IllegalArgumentException e) {
                throw new InvalidFilterRuleException(
                        property + ".filters[" + j + "].args.limits",
                        "of route '" + route.getId() + "': " + e.getMessage());
            }
        }
    }
}
