package io.github.ratelimit.spring.definition;

/**
 * A declaration ({@code @RateLimited}, {@code @SingleUse}, ...) is invalid; raised at startup, naming the
 * method and the bad value.
 */
public class InvalidDefinitionException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String annotation;
    private final String source;

    public InvalidDefinitionException(String annotation, String source, String problem) {
        super("Invalid @" + annotation + " on " + source + ": " + problem);
        this.annotation = annotation;
        this.source = source;
    }

    /** The annotation's simple name, such as {@code RateLimited}. */
    public String annotation() {
        return annotation;
    }

    /** Where the definition came from, such as a method signature. */
    public String source() {
        return source;
    }
}
