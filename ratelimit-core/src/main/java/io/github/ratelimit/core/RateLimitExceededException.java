package io.github.ratelimit.core;

import java.util.stream.Collectors;

/** Thrown instead of calling a rate-limited method when a limit has no room. Carries the decision. */
public class RateLimitExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Decision decision;

    public RateLimitExceededException(Decision decision) {
        super("Rate limit exceeded: "
                + decision.rejected().stream()
                        .map(o -> o.request().limit().name() + " ("
                                + o.request().limit().ceiling() + " per "
                                + (o.request().limit().period() != null
                                        ? o.request().limit().period().toString()
                                        : o.request().limit().windowMs() + " ms")
                                + ")")
                        .distinct()
                        .collect(Collectors.joining(", "))
                + "; retry after " + decision.retryAfter().toMillis() + " ms");
        this.decision = decision;
    }

    /** The decision that rejected the call. */
    public Decision decision() {
        return decision;
    }
}
