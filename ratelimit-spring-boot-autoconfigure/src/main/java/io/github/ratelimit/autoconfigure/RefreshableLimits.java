package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import io.github.ratelimit.spring.definition.Plans;

/**
 * Limits compiled from {@code ratelimit.*} that a refresh of the properties rebuilds without a restart (Spring Cloud's
 * {@code EnvironmentChangeEvent}): path rules, gateway limits, the plans of customers. A refresh first prepares every
 * part; only when all of them compiled does it put them in force, so an invalid change is refused as a whole and the
 * limits in force stay. What was counted carries over wherever a limit's name, algorithm and window stay the same.
 */
public interface RefreshableLimits {

    /**
     * Compiles this part of the refreshed properties, changing nothing in force.
     *
     * @param properties the refreshed properties, bound and checked
     * @param plans the refreshed plan groups, to compile against
     * @return what puts the compiled part in force
     * @throws RuntimeException naming the property, when the part is not valid ({@link InvalidFilterRuleException},
     *     {@link IllegalArgumentException})
     */
    Runnable prepare(RateLimitProperties properties, Plans plans);
}
