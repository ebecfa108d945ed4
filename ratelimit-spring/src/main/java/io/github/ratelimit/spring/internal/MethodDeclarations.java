package io.github.ratelimit.spring.internal;

import java.lang.reflect.Method;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** What the annotations declare, as the annotation support compiled it: for the OpenAPI documentation and the meters. */
public interface MethodDeclarations {

    /** The method's rate limits, or null when it has none (or rate limits are off). */
    @Nullable
    MethodLimits rateLimits(Method method);

    /** The method's concurrency limit, or null when it has none. */
    @Nullable
    ConcurrencyLimit concurrencyLimit(Method method);

    /** Whether the method takes a single-use token. */
    boolean takesToken(Method method);

    /** Whether the method runs under a lock. */
    boolean locks(Method method);

    /** The names of the concurrency limits declared so far; after startup (every method checked), all of them. */
    Set<String> concurrencyLimitNames();

    /**
     * A concurrency limit as declared.
     *
     * @param name the limit's name
     * @param max calls in progress at most
     * @param keyText the key expression, as written
     */
    record ConcurrencyLimit(String name, int max, String keyText) {}
}
