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

    /** What a client is told when its request's cost could not be determined. */
    public static final String COST_DETAIL = "The rate limit cost of this request could not be determined.";

    private final String clientDetail;
    private final boolean cost;

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
        this(message, clientDetail, cause, false);
    }

    private RateLimitEvaluationException(String message, String clientDetail, @Nullable Throwable cause, boolean cost) {
        super(message, cause);
        this.clientDetail = clientDetail;
        this.cost = cost;
    }

    /**
     * The call's cost, not its key, could not be resolved (it failed, was no whole number, or lay outside {@code
     * 0..limit}): a web application answers 400 titled so, not "Missing rate limit key".
     *
     * @param message for the log: may name expressions and methods
     * @param clientDetail for the client: never an expression
     */
    public static RateLimitEvaluationException ofCost(String message, String clientDetail, @Nullable Throwable cause) {
        return new RateLimitEvaluationException(message, clientDetail, cause, true);
    }

    /** Whether the cost, not the key, could not be resolved ({@link #ofCost}). */
    public boolean aboutCost() {
        return cost;
    }

    /** What the client may be told. */
    public String clientDetail() {
        return clientDetail;
    }
}
