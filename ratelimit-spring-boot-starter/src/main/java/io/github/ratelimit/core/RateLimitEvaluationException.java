package io.github.ratelimit.core;

/**
 * A call's rate limit key or cost could not be resolved (it evaluated to null or empty, to a cost outside
 * the limit, or failed). The call is not made: an unresolved key never falls back to a bucket shared by
 * every caller.
 */
public class RateLimitEvaluationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public RateLimitEvaluationException(String message) {
        super(message);
    }

    public RateLimitEvaluationException(String message, Throwable cause) {
        super(message, cause);
    }
}
