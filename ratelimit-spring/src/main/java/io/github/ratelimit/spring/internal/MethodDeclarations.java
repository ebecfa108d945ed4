package io.github.ratelimit.spring.internal;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the annotations declare, as the annotation support compiled it: for the OpenAPI documentation, the meters and
 * the operator endpoint.
 */
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
     * The adaptive concurrency limits declared so far, by name (the first method's, where several share a name); after
     * startup, all of them.
     */
    Map<String, AdaptiveLimit> adaptiveLimits();

    /**
     * An adaptive concurrency limit as declared.
     *
     * @param name the limit's name
     * @param settings how it may move
     * @param keyText the key, as written
     * @param kind what its identifiers are counted under ({@link ClientIdentifier#of(String, String)}'s kind)
     * @param constant the key's one value when it is a constant (such as {@code 'orders-db'}), or null: an operator
     *     names the value
     */
    record AdaptiveLimit(
            String name, AdaptiveSettings settings, String keyText, String kind, @Nullable String constant) {

        /** The identifier of the key's value {@code value}. */
        public ClientIdentifier identifier(String value) {
            return ClientIdentifier.of(kind, value);
        }
    }

    /**
     * A concurrency limit as declared.
     *
     * @param name the limit's name
     * @param max calls in progress at most
     * @param keyText the key expression, as written
     */
    record ConcurrencyLimit(String name, int max, String keyText) {}
}
