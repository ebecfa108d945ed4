package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.RateLimitExceededException;

/** A refusal by one method's own limits: its fallback answers it, not those of nested limited calls. */
final class RefusedByLimits extends RateLimitExceededException {

    private static final long serialVersionUID = 1L;

    private final transient MethodLimits limits;

    RefusedByLimits(Decision decision, MethodLimits limits) {
        super(decision);
        this.limits = limits;
    }

    boolean refusedBy(MethodLimits candidate) {
        return limits == candidate;
    }
}
