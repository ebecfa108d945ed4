package io.github.ratelimit.core;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Redis did not answer within the latency budget, refused the call (out of memory, busy), or is considered
 * down for a short while after repeated failures. Rate limits then follow their failure mode (in memory, open or
 * closed) as configured; single-use tokens and locks always fail closed with this exception (HTTP 503 in a Spring MVC
 * application).
 */
public class RedisUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final Duration retryAfter;

    public RedisUnavailableException(String message, Duration retryAfter, @Nullable Throwable cause) {
        super(message, cause);
        this.retryAfter = retryAfter;
    }

    /** A hint for clients: when trying again makes sense. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
