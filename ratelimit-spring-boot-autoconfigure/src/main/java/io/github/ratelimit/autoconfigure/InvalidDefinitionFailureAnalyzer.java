package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.definition.InvalidDefinitionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains an invalid {@code @RateLimited} declaration found at startup. */
final class InvalidDefinitionFailureAnalyzer extends AbstractFailureAnalyzer<InvalidDefinitionException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidDefinitionException cause) {
        return new FailureAnalysis(
                cause.getMessage(),
                "Fix the @" + cause.annotation() + " declaration on " + cause.source() + ". " + hint(cause),
                cause);
    }

    private static String hint(InvalidDefinitionException cause) {
        String variables =
                "SpEL may name the method's parameters or #request, #principal, #ip, #client, #method, #args.";
        return switch (cause.annotation()) {
            case "RateLimited" ->
                "Limits and windows must be at least 1 and methods sharing a name must declare the"
                        + " same limits and keys. " + variables;
            default -> variables;
        };
    }
}
