package io.github.ratelimit.spring.definition;

/**
 * Limits compiled from rules that a refresh rebuilds without a restart. Every integration that takes rules is refreshed
 * through this one interface, with its rules in its own words ({@code R}): the web filters' path rules and exclusions
 * ({@link PathRules.Specs}), the gateway routes' named limits, gRPC's method rules, GraphQL's operation rules and cost,
 * the outbound clients' rules, the customers' plans. Where the rules are read from is the wiring's.
 *
 * <p>A refresh first prepares every part against the refreshed plan groups; only when all of them compiled does it run
 * what they returned, so an invalid change is refused as a whole and the limits in force stay. What was counted
 * carries over wherever a limit's name, algorithm and window stay the same: counts belong to those, not to a quota.
 *
 * @param <R> the rules, as the integration takes them
 */
@FunctionalInterface
public interface RefreshableLimits<R> {

    /**
     * Compiles refreshed rules now, changing nothing in force.
     *
     * @param rules the refreshed rules
     * @param plans the refreshed plan groups, to compile against
     * @return what puts the compiled rules in force, from the next call on
     * @throws RuntimeException naming the property, when the rules are not valid ({@link InvalidFilterRuleException},
     *     {@link IllegalArgumentException})
     */
    Runnable prepare(R rules, Plans plans);
}
