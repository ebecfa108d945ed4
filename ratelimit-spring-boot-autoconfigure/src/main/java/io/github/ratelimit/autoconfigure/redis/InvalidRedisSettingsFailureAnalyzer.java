package io.github.ratelimit.autoconfigure.redis;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a {@code spring.data.redis.*} value that cannot be a connection, such as a malformed URL. */
final class InvalidRedisSettingsFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRedisSettingsException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidRedisSettingsException cause) {
        return new FailureAnalysis(
                "Invalid Redis connection settings: " + cause.getMessage(),
                "Correct the property named above. spring.data.redis.url takes the form"
                        + " redis://[[user]:password@]host[:port][/database] (rediss:// for TLS).",
                cause);
    }
}
