package io.github.ratelimit.core;

/** A rate limit declaration is invalid; raised at startup, naming the method or property and the bad value. */
public class RateLimitDefinitionException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String source;

    public RateLimitDefinitionException(String source, String problem) {
        super("Invalid rate limit on " + source + ": " + problem);
        this.source = source;
    }

    /** Where the definition came from, such as a method signature. */
    public String source() {
        return source;
    }
}
