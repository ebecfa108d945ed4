package io.github.ratelimit.autoconfigure.internal;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains an invalid {@code ratelimit.filter.rules[...]} property found at startup. */
public final class InvalidFilterRuleFailureAnalyzer extends AbstractFailureAnalyzer<InvalidFilterRuleException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidFilterRuleException cause) {
        return new FailureAnalysis(
                cause.getMessage(),
                "Fix " + cause.property() + ". A rule needs paths (PathPattern syntax), limits with a limit of at"
                        + " least 1 and a window such as 1s, 1m or 1h, and a key of ip, principal, client,"
                        + " header:<Name> or spel:<expression>.",
                cause);
    }
}
