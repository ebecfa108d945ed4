package io.github.ratelimit.autoconfigure.redis;

/** A {@code spring.data.redis.*} value the starter cannot turn into a connection, such as a malformed URL. */
final class InvalidRedisSettingsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    InvalidRedisSettingsException(String message, Throwable cause) {
        super(message, cause);
    }
}
