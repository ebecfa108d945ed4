package io.github.ratelimit.core;

import org.jspecify.annotations.Nullable;

/**
 * A call's rate limit key or cost could not be resolved (it evaluated to null or empty, to a cost outside
 * the limit, or failed). The call is not made: an unresolved key never falls back to a bucket shared by
 * every caller. In a web application the client gets 400 with {@link #clientDetail()}, which never shows an
 * expression; the message, for the log, names the expression and the method.
 */
public class RateLimitEvaluationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** What a client is told when no more specific detail is given. */
    public static final String GENERIC_DETAIL = "The rate limit key of this request could not be determined.";

    private final String clientDetail;

    public RateLimitEvaluationException(String message) {
        this(message, GENERIC_DETAIL, null);
    }

    public RateLimitEvaluationException(String message, Throwable cause) {
        this(message, GENERIC_DETAIL, cause);
    }

    /**
     * @param message for the log: may name expressions and methods
     * @param clientDetail for the client: says what is missing without showing any expression
     */
    public RateLimitEvaluationException(String message, String clientDetail, @Nullable Throwable cause) {
        super(message, cause);
        this.clientDetail = clientDetail;
    }

    /** What the client may be told. */
    public String clientDetail() {
        return clientDetail;
    }
}
