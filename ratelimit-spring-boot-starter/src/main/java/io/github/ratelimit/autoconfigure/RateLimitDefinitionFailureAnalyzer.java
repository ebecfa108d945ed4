package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.core.RateLimitDefinitionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains an invalid {@code @RateLimited} declaration found at startup. */
final class RateLimitDefinitionFailureAnalyzer extends AbstractFailureAnalyzer<RateLimitDefinitionException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RateLimitDefinitionException cause) {
        return new FailureAnalysis(
                cause.getMessage(),
                "Fix the @RateLimited declaration on " + cause.source()
                        + ". Limits and windows must be at least 1, keys and costs valid SpEL naming the method's"
                        + " parameters or #request, #principal, #ip, #client, #method, #args, and methods sharing"
                        + " a name must declare the same limits and keys.",
                cause);
    }
}
