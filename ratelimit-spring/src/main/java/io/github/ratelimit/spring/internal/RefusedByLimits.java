package io.github.ratelimit.spring.internal;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.RateLimitExceededException;

/** A refusal by one method's own limits: its fallback answers it, not those of nested limited calls. */
public final class RefusedByLimits extends RateLimitExceededException {

    private static final long serialVersionUID = 1L;

    private final transient MethodLimits limits;

    public RefusedByLimits(Decision decision, MethodLimits limits) {
        super(decision);
        this.limits = limits;
    }

    public boolean refusedBy(MethodLimits candidate) {
        return limits == candidate;
    }
}
