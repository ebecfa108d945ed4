package io.github.ratelimit.core;

/**
 * A rate limit key could not be resolved for a call (it evaluated to null or empty, or failed). The call is
 * not made: an unresolved key must never fall back to a bucket shared by every caller.
 */
public class RateLimitKeyException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public RateLimitKeyException(String message) {
        super(message);
    }

    public RateLimitKeyException(String message, Throwable cause) {
        super(message, cause);
    }
}
