package io.github.ratelimit.gateway;

import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.RefreshPart;
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
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;

/**
 * Spring Cloud Gateway on WebFlux: {@link RateLimitRouteLimiter} as the {@code RateLimiter} of the
 * {@code RequestRateLimiter} filter, and a startup check of the routes in properties that use it. Before the gateway's
 * own auto-configuration, which creates the filter only when a {@code RateLimiter} bean exists.
 */
@AutoConfiguration(
        beforeName = "org.springframework.cloud.gateway.config.GatewayAutoConfiguration",
        afterName = "io.github.ratelimit.autoconfigure.reactive.RateLimitReactiveWebAutoConfiguration")
@ConditionalOnClass(
        name = {
            "org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter",
            "org.springframework.cloud.gateway.config.GatewayAutoConfiguration"
        })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnBooleanProperty(name = "spring.cloud.gateway.server.webflux.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitGatewayProperties.class)
public final class RateLimitGatewayWebFluxAutoConfiguration {

    private static final org.slf4j.Logger log =
            org.slf4j.LoggerFactory.getLogger(RateLimitGatewayWebFluxAutoConfiguration.class);

    static final String FILTER = "RequestRateLimiter";
    static final String ARGUMENT = RateLimitRouteLimiter.CONFIGURATION_PROPERTY_NAME + ".limits";

    @Bean
    @ConditionalOnMissingBean
    RateLimitRouteLimiter rateLimitRouteLimiter(
            RateLimitProperties properties,
            RateLimitGatewayProperties gateway,
            ListableBeanFactory beans,
            ObjectProvider<Plans> plans,
            ObjectProvider<RateLimitDecisions> decisions,
            ConfigurationService configurationService) {
        return new RateLimitRouteLimiter(
                GatewayLimits.of(gateway, true, beans, plans, decisions), configurationService);
    }

    /** A refresh compiles the gateway's limits those of {@code ratelimit.gateway.limits}. */
    @Bean
    RefreshPart<Map<String, FilterRuleSpec>> rateLimitGatewayRefresh(RateLimitRouteLimiter limiter) {
        return new RefreshPart<>(limiter.limits(), settings -> settings.get(RateLimitGatewayProperties.class)
                .getLimits());
    }

    /** The gateway's limits among the declared ones: the startup summary counts them, the endpoint lists them. */
    @Bean
    io.github.ratelimit.spring.definition.DeclaredLimits rateLimitGatewayLimits(RateLimitRouteLimiter limiter) {
        return limiter.limits();
    }

    /** Fails the start for a route in properties that names a limit there is not, or uses the limiter naming none. */
    @Bean
    static SmartInitializingSingleton rateLimitRouteCheck(
            ObjectProvider<GatewayProperties> gateway, ObjectProvider<RateLimitRouteLimiter> limiter) {
        return () -> {
            GatewayProperties routes = gateway.getIfAvailable();
            RateLimitRouteLimiter ours = limiter.getIfAvailable();
            if (routes == null || ours == null) {
                return;
            }
            String prefix = "spring.cloud.gateway.server.webflux.";
            check(routes.getDefaultFilters(), prefix + "default-filters", "the default filters", ours);
            List<RouteDefinition> defined = routes.getRoutes();
            for (int i = 0; i < defined.size(); i++) {
                check(
                        defined.get(i).getFilters(),
                        prefix + "routes[" + i + "].filters",
                        "route '" + defined.get(i).getId() + "'",
                        ours);
            }
        };
    }

    private static void check(
            List<FilterDefinition> filters, String property, String where, RateLimitRouteLimiter ours) {
        for (int j = 0; j < filters.size(); j++) {
            FilterDefinition filter = filters.get(j);
            Map<String, String> args = filter.getArgs();
            String at = property + "[" + j + "].args." + ARGUMENT;
            boolean otherLimiter = args.containsKey("rate-limiter") || args.containsKey("rateLimiter");
            if (args.containsKey(ARGUMENT)) {
                try {
                    ours.names(args.get(ARGUMENT), where);
                } catch (IllegalArgumentException e) {
                    throw new InvalidFilterRuleException(at, e.getMessage());
                }
                if (!args.containsKey("key-resolver") && !args.containsKey("keyResolver")) {
                    log.warn(
                            "{} applies {} without a key-resolver ({}[{}].args.key-resolver): Spring Cloud Gateway's"
                                    + " default resolver is the principal's name, and a request without one is answered"
                                    + " 403 before the limits are asked (deny-empty-key), even by limits that name their"
                                    + " own key. Name a KeyResolver bean there, such as \"#{@userKey}\" (as docs/stacks.md shows);"
                                    + " for limits that all name their key, one that answers a constant will do",
                            where,
                            FILTER,
                            property,
                            j);
                }
            } else if (FILTER.equals(filter.getName()) && !otherLimiter) {
                throw new InvalidFilterRuleException(
                        at,
                        "is missing: " + where + " applies " + FILTER + " with the limits of ratelimit.gateway.limits"
                                + " but names none of them");
            }
        }
    }
}
