package io.github.ratelimit.autoconfigure.memory;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a store that is not there: the Redis module missing while {@code ratelimit.store} is redis. */
final class StoreNotAvailableFailureAnalyzer extends AbstractFailureAnalyzer<StoreNotAvailableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, StoreNotAvailableException cause) {
        return new FailureAnalysis(
                cause.getMessage(),
                "Add io.github.ratelimit:ratelimit-redis (ratelimit-spring-boot-starter brings it) to share limits"
                        + " across instances, or set ratelimit.store=memory to count them in each instance's memory"
                        + " alone (one instance, local development, tests).",
                cause);
    }
}
