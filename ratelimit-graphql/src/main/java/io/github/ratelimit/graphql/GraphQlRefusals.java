package io.github.ratelimit.graphql;

import graphql.ErrorClassification;
import graphql.GraphQLError;
import graphql.GraphqlErrorBuilder;
import graphql.schema.DataFetchingEnvironment;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.core.tokens.SingleUseTokenException;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.graphql.execution.DataFetcherExceptionResolverAdapter;
import org.springframework.graphql.execution.ErrorType;

/**
 * The GraphQL answer of every refusal of the annotations: an error of the field whose data fetcher was refused, so
 * that the operation's other fields still resolve. Its {@code message} names what refused it (never an identifier's
 * value or a token) and its {@code extensions} say what a client needs:
 *
 * <ul>
 *   <li>a rate limit or a concurrency limit: {@code classification: "RATE_LIMITED"}, {@code retryAfter} (whole seconds,
 *       at least 1) and {@code policy} (HTTP's {@code RateLimit-Policy} field);
 *   <li>a busy lock: {@code classification: "RESOURCE_BUSY"} and {@code retryAfter};
 *   <li>Redis unable to decide: {@code classification: "UNAVAILABLE"} and {@code retryAfter};
 *   <li>a single-use token: {@code NOT_FOUND} when unknown or expired, else {@code BAD_REQUEST}, with {@code reason};
 *   <li>a key that cannot be read from the call: {@code BAD_REQUEST}.
 * </ul>
 */
public final class GraphQlRefusals extends DataFetcherExceptionResolverAdapter {

    /** The classification of a rate or concurrency limit's refusal. */
    public static final ErrorClassification RATE_LIMITED = ErrorClassification.errorClassification("RATE_LIMITED");

    /** The classification of a busy lock's refusal. */
    public static final ErrorClassification RESOURCE_BUSY = ErrorClassification.errorClassification("RESOURCE_BUSY");

    /** The classification of a call Redis could not decide. */
    public static final ErrorClassification UNAVAILABLE = ErrorClassification.errorClassification("UNAVAILABLE");

    private final boolean allPolicies;

    /** @param allPolicies whether {@code policy} carries every limit instead of those the client needs */
    public GraphQlRefusals(boolean allPolicies) {
        this.allPolicies = allPolicies;
        setThreadLocalContextAware(false);
    }

    @Override
    protected @Nullable GraphQLError resolveToSingleError(Throwable error, DataFetchingEnvironment environment) {
        return error(error, GraphqlErrorBuilder.newError(environment), allPolicies);
    }

    /** The error of a refusal, built on {@code answer} (a field's, or an operation's); null for any other error. */
    static @Nullable GraphQLError error(Throwable error, GraphqlErrorBuilder<?> answer, boolean allPolicies) {
        Map<String, Object> extensions = new LinkedHashMap<>();
        if (error instanceof RateLimitExceededException exceeded) {
            Decision decision = exceeded.decision();
            extensions.put("retryAfter", seconds(decision.retryAfter()));
            extensions.put("policy", RateLimitHeaders.of(decision, allPolicies).get("RateLimit-Policy"));
            answer.errorType(RATE_LIMITED)
                    .message("Rate limit exceeded (" + String.join(", ", RateLimitHeaders.violatedPolicies(decision))
                            + "); retry after " + seconds(decision.retryAfter()) + " s");
        } else if (error instanceof ConcurrencyLimitExceededException busy) {
            extensions.put("retryAfter", seconds(busy.retryAfter()));
            extensions.put("policy", RateLimitHeaders.inProgress(busy).get("RateLimit-Policy"));
            answer.errorType(RATE_LIMITED)
                    .message("Concurrency limit '" + busy.name() + "' reached (" + busy.max() + " calls in progress)");
        } else if (error instanceof LockNotAcquiredException busy) {
            extensions.put("retryAfter", seconds(busy.retryAfter()));
            answer.errorType(RESOURCE_BUSY)
                    .message("Another call holds the lock for this resource; retry after " + seconds(busy.retryAfter())
                            + " s");
        } else if (error instanceof RedisUnavailableException unavailable) {
            extensions.put("retryAfter", seconds(unavailable.retryAfter()));
            answer.errorType(UNAVAILABLE)
                    .message("The call could not be checked right now; retry after " + seconds(unavailable.retryAfter())
                            + " s");
        } else if (error instanceof SingleUseTokenException token) {
            extensions.put("reason", token.status().name());
            answer.errorType(
                            token.status()
                                            == io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status
                                                    .UNKNOWN
                                    ? ErrorType.NOT_FOUND
                                    : ErrorType.BAD_REQUEST)
                    .message(String.valueOf(token.getMessage()));
        } else if (error instanceof RateLimitEvaluationException unreadable) {
            answer.errorType(ErrorType.BAD_REQUEST).message(unreadable.clientDetail());
        } else {
            return null;
        }
        return answer.extensions(extensions).build();
    }

    /** Whole seconds, rounded up, at least 1: as {@code Retry-After} says them. */
    private static long seconds(Duration duration) {
        return Math.max(1, RateLimitHeaders.seconds(duration));
    }
}
