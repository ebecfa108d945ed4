package io.github.ratelimit.autoconfigure.redis;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains why the application was not started with {@code ratelimit.redis.require-at-startup=true}. */
final class RedisStartupFailureAnalyzer extends AbstractFailureAnalyzer<RedisNotReachableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RedisNotReachableException cause) {
        return new FailureAnalysis(
                "Rate limiting could not reach Redis " + cause.target() + " at startup: " + cause.reason(),
                "Start Redis or correct spring.data.redis.* (url, host, port, username, password), or set"
                        + " ratelimit.redis.require-at-startup=false to start without Redis and connect in the"
                        + " background (rate limits then follow ratelimit.failure-mode, in memory per instance by"
                        + " default; tokens and locks answer 503 until it answers).",
                cause);
    }
}
