package io.github.ratelimit.gateway;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.KeyResolver;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.FilterRuleSpec;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.NamedLimits;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.definition.RefreshableLimits;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The limits of {@code ratelimit.gateway.limits}, compiled once, and the decision flow they are decided by: what both
 * gateway servers share.
 */
final class GatewayLimits implements DeclaredLimits, RefreshableLimits<Map<String, FilterRuleSpec>> {

    static final String PROPERTY = "ratelimit.gateway.limits";

    private volatile NamedLimits limits;
    private final @Nullable RateLimitDecisions decisions;
    private final KeyResolvers keys;
    private final String defaultKey;

    /**
     * @param routeKeys whether routes resolve a key of their own (WebFlux's KeyResolver): then the key {@code route}
     *     exists and a limit without a key counts it
     * @param resolvers the application's key resolvers by bean name
     * @param decisions the decision flow; null when rate limits are off (every call goes through)
     */
    GatewayLimits(
            Map<String, FilterRuleSpec> specs,
            boolean routeKeys,
            Map<String, KeyResolver> resolvers,
            Plans plans,
            @Nullable RateLimitDecisions decisions) {
        Map<String, KeyResolver> kinds = new LinkedHashMap<>(resolvers);
        if (routeKeys) {
            kinds.put("route", RouteCaller::routeKey);
        }
        this.keys = new KeyResolvers(kinds);
        this.defaultKey = routeKeys ? "route" : "client";
        this.limits = new NamedLimits(specs, PROPERTY, plans, keys, defaultKey);
        this.decisions = decisions;
    }

    /**
     * The limits of refreshed properties, compiled now, in force from the next request. Routes name limits, and were
     * checked at startup against the names there were: a refresh may change every limit, and add limits, but remove
     * none.
     */
    @Override
    public Runnable prepare(Map<String, FilterRuleSpec> specs, Plans plans) {
        for (String name : limits.names()) {
            if (!specs.containsKey(name)) {
                throw new IllegalArgumentException(PROPERTY + "." + name + " is gone from the refreshed properties;"
                        + " routes may name it, so a refresh cannot remove it (a restart can)");
            }
        }
        NamedLimits refreshed = new NamedLimits(specs, PROPERTY, plans, keys, defaultKey);
        return () -> limits = refreshed;
    }

    /** The limits of the properties, with the application's key resolvers, plans and decision flow. */
    static GatewayLimits of(
            RateLimitGatewayProperties properties,
            boolean routeKeys,
            ListableBeanFactory beans,
            ObjectProvider<Plans> plans,
            ObjectProvider<RateLimitDecisions> decisions) {
        return new GatewayLimits(
                properties.getLimits(),
                routeKeys,
                beans.getBeansOfType(KeyResolver.class),
                plans.getIfAvailable(() -> Plans.NONE),
                decisions.getIfAvailable());
    }

    /** The names of a route's list, checked (see {@link NamedLimits#names}). */
    List<String> names(String list, String where) {
        return limits.names(list, where);
    }

    /** The flow, or null when rate limits are off. */
    @Nullable
    RateLimitDecisions decisions() {
        return decisions;
    }

    /** What the named limits ask of one request (see {@link NamedLimits#call}). */
    RateLimitDecisions.@Nullable Call call(List<String> names, String method, String rawPath, CallerContext caller) {
        return limits.call(
                names, method, rawPath, caller, java.util.Objects.requireNonNull(decisions, "rate limits are off"));
    }

    @Override
    public List<DeclaredLimit> declaredLimits() {
        return limits.declaredLimits();
    }
}
