package io.github.ratelimit.autoconfigure.redis;

import org.jspecify.annotations.Nullable;

/** A {@code spring.data.redis.*} value the starter cannot turn into a connection, such as a malformed URL. */
final class InvalidRedisSettingsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    InvalidRedisSettingsException(@Nullable String message, Throwable cause) {
        super(message, cause);
    }
}
