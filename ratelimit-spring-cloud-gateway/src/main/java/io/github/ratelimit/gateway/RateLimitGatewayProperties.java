package io.github.ratelimit.gateway;

import io.github.ratelimit.spring.definition.FilterRuleSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The settings of Spring Cloud Gateway routes' limits: {@code ratelimit.gateway.*}. */
@ConfigurationProperties(prefix = "ratelimit.gateway")
public class RateLimitGatewayProperties {

    /**
     * Limits routes name, by name: each shaped like a path rule without paths (limits or plans, key, cost, failure
     * mode, retry advice, wait, shadow). A limit without a key counts the route's key on WebFlux (what the route's
     * KeyResolver gives, the key {@code route}) and the client (the principal, else the IP) on Web MVC. A refresh may
     * change every limit and add limits, but remove none that routes may name.
     */
    private Map<String, FilterRuleSpec> limits = new LinkedHashMap<>();

    public Map<String, FilterRuleSpec> getLimits() {
        return limits;
    }

    public void setLimits(Map<String, FilterRuleSpec> limits) {
        this.limits = limits;
    }
}
