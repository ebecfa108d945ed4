package io.github.ratelimit.graphql;

import io.github.ratelimit.spring.definition.FilterRuleSpec;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The settings of GraphQL operations' limits: {@code ratelimit.graphql.*}. */
@ConfigurationProperties(prefix = "ratelimit.graphql")
public class RateLimitGraphQlProperties {

    /**
     * Rules of GraphQL operations over HTTP, shaped as path rules are (limits or plans, key, cost, failure mode,
     * shadow): {@code paths} are operation patterns ({@code query/*}, {@code mutation/Name}, {@code subscription/*}),
     * keys read the request's headers ({@code header:x-user-id}) or the client's address ({@code ip}); {@code methods}
     * is not used. A rule's {@code cost} is multiplied by the operation's units (see {@code cost}).
     */
    private List<FilterRuleSpec> rules = new ArrayList<>();

    /**
     * The units an operation costs: a SpEL expression over {@code #fields} (the fields it selects), {@code #depth},
     * {@code #type} and {@code #name}, giving a whole number; checked at startup on an operation of one field.
     */
    private String cost = "#fields";

    public List<FilterRuleSpec> getRules() {
        return rules;
    }

    public void setRules(List<FilterRuleSpec> rules) {
        this.rules = rules;
    }

    public String getCost() {
        return cost;
    }

    public void setCost(String cost) {
        this.cost = cost;
    }
}
