package io.github.ratelimit.aop;

import io.github.ratelimit.core.RedisFallbacks;
import java.util.function.BooleanSupplier;

/**
 * Application-wide switches the interceptors ask on every call.
 *
 * @param shadow whether every limit is in shadow mode
 * @param failClosed whether every limit fails closed when Redis cannot decide
 * @param fallbacks where decisions made without Redis are counted and logged
 */
public record RateLimitSettings(BooleanSupplier shadow, BooleanSupplier failClosed, RedisFallbacks fallbacks) {

    /** Enforcing, failing open, counting fallbacks in a fresh {@link RedisFallbacks}. */
    public static RateLimitSettings defaults() {
        return new RateLimitSettings(() -> false, () -> false, new RedisFallbacks());
    }

    boolean allShadow() {
        return shadow.getAsBoolean();
    }

    boolean allFailClosed() {
        return failClosed.getAsBoolean();
    }
}
