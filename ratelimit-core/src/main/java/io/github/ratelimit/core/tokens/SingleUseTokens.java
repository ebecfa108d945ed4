package io.github.ratelimit.core.tokens;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

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
     * Takes one use of a token, atomically: returns its metadata if a use was left, else why not (a null or blank
     * token is missing). A token stays known as used until its original expiry, so a replay is told apart from an
     * unknown token.
     */
    TokenConsumption consume(String purpose, @Nullable String token);

    /**
     * Gives back one use taken by {@link #consume}, for a call that failed before it had any effect. Call it
     * only after a successful consume of your own; returns false if the token is gone or has no use taken.
     */
    boolean release(String purpose, @Nullable String token);

    /**
     * {@link #consume} without blocking the calling thread, for reactive callers. The default runs on the calling
     * thread; implementations that wait for a network override it.
     */
    default CompletionStage<TokenConsumption> consumeAsync(String purpose, @Nullable String token) {
        try {
            return CompletableFuture.completedFuture(consume(purpose, token));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** {@link #release} without blocking the calling thread; the default runs on the calling thread. */
    default CompletionStage<Boolean> releaseAsync(String purpose, @Nullable String token) {
        try {
            return CompletableFuture.completedFuture(release(purpose, token));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A newly issued single-use token. Only the application ever holds the token itself; Redis keeps a SHA-256
     * of it. {@link #toString()} does not show the token.
     *
     * @param token the secret to hand to the client: 192 random bits, base64url (32 characters)
     * @param purpose what it is for
     * @param uses how many times it can be consumed
     * @param ttl how long it lives
     * @param expiresAt when it stops working, by the Redis server's clock
     */
    public record IssuedToken(String token, String purpose, int uses, Duration ttl, Instant expiresAt) {

        @Override
        public String toString() {
            return "IssuedToken[purpose=" + purpose + ", uses=" + uses + ", ttl=" + ttl + ", expiresAt=" + expiresAt
                    + "]";
        }
    }

    /**
     * The outcome of presenting a single-use token. Declare a parameter of this type on a {@code @SingleUse}
     * method to receive the metadata of the token it consumed.
     *
     * @param status what happened
     * @param purpose the purpose the token was presented for
     * @param metadata the metadata given at issue time; empty unless consumed
     * @param remainingUses how many uses the token has left after this one; 0 unless consumed
     */
    public record TokenConsumption(Status status, String purpose, Map<String, String> metadata, int remainingUses) {

        /** What happened to a presented token. */
        public enum Status {
            /** The token was valid and one of its uses was taken. */
            CONSUMED,
            /** No token was presented. */
            MISSING,
            /** The value cannot be a token of ours (wrong length or characters); Redis was not asked. */
            MALFORMED,
            /** No such token for this purpose: never issued, or expired. */
            UNKNOWN,
            /** The token exists but all its uses are taken. */
            ALREADY_USED
        }

        public TokenConsumption {
            metadata = Map.copyOf(metadata);
        }

        /** Whether a use was taken. */
        public boolean consumed() {
            return status == Status.CONSUMED;
        }

        /** This consumption, or a {@link SingleUseTokenException} with the reason it was refused. */
        public TokenConsumption orElseThrow() {
            if (!consumed()) {
                throw new SingleUseTokenException(status, purpose);
            }
            return this;
        }
    }
}
