package io.github.ratelimit.grpc;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.core.tokens.SingleUseTokenException;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The gRPC answer of every refusal, as the HTTP answer's counterpart: a status, a description that names what refused
 * the call (never an identifier's value), and trailers.
 *
 * <ul>
 *   <li>a rate limit: {@code RESOURCE_EXHAUSTED}, with {@code grpc-retry-pushback-ms} (when to try again, as gRPC's
 *       retry policy reads it) and {@code ratelimit} and {@code ratelimit-policy} (the fields of HTTP's RateLimit
 *       headers);
 *   <li>a concurrency limit: {@code RESOURCE_EXHAUSTED}, with the same trailers;
 *   <li>a busy lock: {@code ABORTED}, with {@code grpc-retry-pushback-ms};
 *   <li>a single-use token: {@code FAILED_PRECONDITION} when already used, {@code INVALID_ARGUMENT} when missing or
 *       malformed, {@code NOT_FOUND} when unknown or expired;
 *   <li>a key that cannot be read from the call: {@code INVALID_ARGUMENT};
 *   <li>Redis unable to decide a limit that fails closed, a token or a lock: {@code UNAVAILABLE}, with
 *       {@code grpc-retry-pushback-ms}.
 * </ul>
 */
public final class GrpcRefusals {

    /** The trailer gRPC's retry policy reads: how many milliseconds to wait before trying again. */
    public static final Metadata.Key<String> RETRY_PUSHBACK_MS =
            Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

    /** The remaining quota, as HTTP's {@code RateLimit} field. */
    public static final Metadata.Key<String> RATE_LIMIT =
            Metadata.Key.of("ratelimit", Metadata.ASCII_STRING_MARSHALLER);

    /** The quota policies, as HTTP's {@code RateLimit-Policy} field. */
    public static final Metadata.Key<String> RATE_LIMIT_POLICY =
            Metadata.Key.of("ratelimit-policy", Metadata.ASCII_STRING_MARSHALLER);

    private GrpcRefusals() {}

    /**
     * The answer for one of the library's refusals, or null for any other error.
     *
     * @param allPolicies whether the RateLimit fields carry every limit instead of those the client needs
     */
    public static @Nullable StatusException of(Throwable error, boolean allPolicies) {
        Metadata trailers = new Metadata();
        Status status;
        if (error instanceof RateLimitExceededException exceeded) {
            Decision decision = exceeded.decision();
            fields(trailers, RateLimitHeaders.of(decision, allPolicies));
            pushback(trailers, decision.retryAfter());
            status = Status.RESOURCE_EXHAUSTED.withDescription("Rate limit exceeded ("
                    + String.join(", ", RateLimitHeaders.violatedPolicies(decision)) + "); retry after "
                    + millis(decision.retryAfter()) + " ms");
        } else if (error instanceof ConcurrencyLimitExceededException busy) {
            fields(trailers, RateLimitHeaders.inProgress(busy));
            pushback(trailers, busy.retryAfter());
            status = Status.RESOURCE_EXHAUSTED.withDescription(
                    "Concurrency limit '" + busy.name() + "' reached (" + busy.max() + " calls in progress)");
        } else if (error instanceof LockNotAcquiredException busy) {
            pushback(trailers, busy.retryAfter());
            status = Status.ABORTED.withDescription(
                    "Another call holds the lock for this resource; retry after " + millis(busy.retryAfter()) + " ms");
        } else if (error instanceof SingleUseTokenException token) {
            status = switch (token.status()) {
                case ALREADY_USED -> Status.FAILED_PRECONDITION;
                case MISSING, MALFORMED -> Status.INVALID_ARGUMENT;
                case UNKNOWN -> Status.NOT_FOUND;
                case CONSUMED -> Status.INTERNAL;
            };
            status = status.withDescription(token.getMessage());
        } else if (error instanceof RateLimitEvaluationException unreadable) {
            status = Status.INVALID_ARGUMENT.withDescription(unreadable.clientDetail());
        } else if (error instanceof RedisUnavailableException unavailable) {
            pushback(trailers, unavailable.retryAfter());
            status = Status.UNAVAILABLE.withDescription(
                    "The call could not be checked right now; retry after " + millis(unavailable.retryAfter()) + " ms");
        } else {
            return null;
        }
        return status.asException(trailers);
    }

    /** Puts the RateLimit fields of {@code headers} (HTTP's names) into {@code metadata}; Retry-After stays out. */
    static void fields(Metadata metadata, Map<String, String> headers) {
        headers.forEach((name, value) -> {
            switch (name.toLowerCase(Locale.ROOT)) {
                case "ratelimit" -> metadata.put(RATE_LIMIT, value);
                case "ratelimit-policy" -> metadata.put(RATE_LIMIT_POLICY, value);
                default -> {} // Retry-After: grpc-retry-pushback-ms says it in milliseconds
            }
        });
    }

    private static void pushback(Metadata trailers, Duration retryAfter) {
        trailers.put(RETRY_PUSHBACK_MS, Long.toString(millis(retryAfter)));
    }

    private static long millis(Duration duration) {
        return Math.max(1, duration.toMillis());
    }
}
