package io.github.ratelimit.core;

import org.jspecify.annotations.Nullable;

/**
 * What the interceptors know about the caller of the current invocation, and where an allowed decision is
 * reported. The web support provides one for servlet requests, and for reactive requests one in the Reactor context
 * (under the key {@code CallerContext.class}); outside a request every value is null.
 */
public interface CallerContext {

    /** A context with no request, principal or address, as for a scheduled job. */
    CallerContext NONE = new CallerContext() {};

    /**
     * The current request object (an {@code HttpServletRequest} in a servlet app, a {@code ServerHttpRequest} in a
     * reactive one), or null.
     */
    default @Nullable Object request() {
        return null;
    }

    /** The authenticated principal's name, or null. */
    default @Nullable String principalName() {
        return null;
    }

    /** The client's network address, or null. */
    default @Nullable String clientAddress() {
        return null;
    }

    /** The value of one request header (the first, when several), or null when absent or outside a request. */
    default @Nullable String header(String name) {
        return null;
    }

    /** Called with each allowed decision, for example to add RateLimit headers to the response. */
    default void allowed(Decision decision) {}

    /**
     * This caller as it is on the calling thread, for a decision that completes on another thread (a
     * {@code CompletionStage} or a publisher). Contexts that read the current thread (such as the servlet request's)
     * return one bound to it; the default is this context.
     */
    default CallerContext snapshot() {
        return this;
    }
}
