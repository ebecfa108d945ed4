package io.github.ratelimit.core;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Tokens that work a fixed number of times (once, by default), across every instance of the application:
 * under any concurrency, a token of {@code uses} N is consumed N times and never N+1.
 */
public interface SingleUseTokens {

    /**
     * Issues a token that can be consumed once.
     *
     * @param purpose what the token is for (letters, digits, {@code ._:/-}, at most 100)
     * @param metadata small caller data returned on consumption (at most 32 entries, 4 KB in all)
     * @param ttl how long the token lives, at least 1 ms
     */
    default IssuedToken issue(String purpose, Map<String, String> metadata, Duration ttl) {
        return issue(purpose, metadata, ttl, 1);
    }

    /** Issues a token that can be consumed {@code uses} times. */
    IssuedToken issue(String purpose, Map<String, String> metadata, Duration ttl, int uses);

    /**
     * {@link #issue(String, Map, Duration, int)} without blocking the calling thread, for reactive callers. The
     * default runs on the calling thread; implementations that wait for a network override it.
     */
    default CompletionStage<IssuedToken> issueAsync(
            String purpose, Map<String, String> metadata, Duration ttl, int uses) {
        try {
            return CompletableFuture.completedFuture(issue(purpose, metadata, ttl, uses));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Takes one use of a token, atomically: returns its metadata if a use was left, else why not. A token
     * stays known as used until its original expiry, so a replay is told apart from an unknown token.
     */
    TokenConsumption consume(String purpose, String token);

    /**
     * Gives back one use taken by {@link #consume}, for a call that failed before it had any effect. Call it
     * only after a successful consume of your own; returns false if the token is gone or has no use taken.
     */
    boolean release(String purpose, String token);

    /**
     * {@link #consume} without blocking the calling thread, for reactive callers. The default runs on the calling
     * thread; implementations that wait for a network override it.
     */
    default CompletionStage<TokenConsumption> consumeAsync(String purpose, String token) {
        try {
            return CompletableFuture.completedFuture(consume(purpose, token));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** {@link #release} without blocking the calling thread; the default runs on the calling thread. */
    default CompletionStage<Boolean> releaseAsync(String purpose, String token) {
        try {
            return CompletableFuture.completedFuture(release(purpose, token));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
