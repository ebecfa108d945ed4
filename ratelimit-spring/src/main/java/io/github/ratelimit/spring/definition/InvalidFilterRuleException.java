package io.github.ratelimit.spring.definition;

import org.jspecify.annotations.Nullable;

/** A rate limit rule in the properties is invalid; raised at startup, naming the property and the bad value. */
public class InvalidFilterRuleException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String property;

    public InvalidFilterRuleException(String property, @Nullable String problem) {
        super("Invalid rate limit rule: " + property + " " + problem);
        this.property = property;
    }

    /** The property at fault, such as {@code ratelimit.filter.rules[2].limits[0].limit}. */
    public String property() {
        return property;
    }
}
