package io.github.ratelimit.grpc;

import io.github.ratelimit.spring.definition.FilterRuleSpec;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The settings of gRPC services' limits: {@code ratelimit.grpc.*}. */
@ConfigurationProperties(prefix = "ratelimit.grpc")
public class RateLimitGrpcProperties {

    /**
     * Rules of gRPC methods, shaped as path rules are (limits or plans, key, cost, failure mode, count-on, shadow):
     * {@code paths} are method patterns ({@code package.Service/Method}, {@code package.Service/*} or {@code **}), keys
     * read the call's metadata ({@code header:x-user-id}) or the peer's address ({@code ip}); {@code methods} is
     * not used. All limits of all rules matching a call are decided in one round trip when the call starts.
     */
    private List<FilterRuleSpec> rules = new ArrayList<>();

    public List<FilterRuleSpec> getRules() {
        return rules;
    }

    public void setRules(List<FilterRuleSpec> rules) {
        this.rules = rules;
    }
}
