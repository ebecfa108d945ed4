package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains an invalid {@code ratelimit.filter.rules[...]} property found at startup. */
public final class InvalidFilterRuleFailureAnalyzer extends AbstractFailureAnalyzer<InvalidFilterRuleException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidFilterRuleException cause) {
        return new FailureAnalysis(
                cause.getMessage(), "Fix " + cause.property() + ". " + hint(cause.property()), cause);
    }

    /** What the property's kind of definition needs: a path rule, a gateway limit, or a route naming gateway limits. */
    static String hint(String property) {
        String limits = "limits with a limit of at least 1 and a window such as 1s, 1m or 1h, and a key of ip,"
                + " principal, client, header:<Name> or spel:<expression>";
        if (property.startsWith("ratelimit.gateway.limits")) {
            return "A gateway limit needs " + limits + " (no paths: the routes that name it choose where it applies).";
        }
        if (property.startsWith("spring.cloud.gateway")) {
            return "A route names limits of ratelimit.gateway.limits, separated by commas.";
        }
        return "A rule needs paths (PathPattern syntax), " + limits + ".";
    }
}
