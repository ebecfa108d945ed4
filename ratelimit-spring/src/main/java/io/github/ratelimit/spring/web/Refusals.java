package io.github.ratelimit.spring.web;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.internal.LogThrottle;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.core.tokens.SingleUseTokenException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * The HTTP answer of every refusal, for the servlet handlers and the reactive exception handler alike: status,
 * {@code Retry-After}, RateLimit fields and an RFC 9457 problem. Framework-neutral: what the answer is, not how it is
 * written.
 */
public final class Refusals {

    /** The problem type registered for exceeded quotas. */
    public static final URI QUOTA_EXCEEDED =
            URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

    /** The title of a 429's problem. */
    public static final String TOO_MANY_TITLE = "Request cannot be satisfied as assigned quota has been exceeded";

    /** The title of a 503's problem. */
    public static final String UNAVAILABLE_TITLE = "Service temporarily unavailable";

    private static final Logger log = LoggerFactory.getLogger(Refusals.class);

    private Refusals() {}

    /** The 400s for keys not determined, counted and logged at most every 10 s by the handler that answers them. */
    public static final class UnresolvedKeys {
        private final AtomicLong count = new AtomicLong();
        private final LogThrottle throttle = new LogThrottle(Duration.ofSeconds(10));
    }

    /**
     * The answer for one of the starter's refusals, or null for any other exception.
     *
     * @param decisions all rate-limit decisions of the request, the refusing one included (see
     *     {@link RateLimitHeaders#record}); asked only for a rate-limit refusal
     */
    public static @Nullable ResponseEntity<ProblemDetail> answer(
            Throwable refusal,
            URI instance,
            java.util.function.Supplier<Decision> decisions,
            boolean allPolicies,
            UnresolvedKeys unresolvedKeys) {
        if (refusal instanceof RateLimitExceededException) {
            return tooManyRequests(decisions.get(), instance, allPolicies);
        }
        if (refusal instanceof ConcurrencyLimitExceededException busy) {
            return tooManyInProgress(busy, instance);
        }
        if (refusal instanceof RateLimitEvaluationException evaluation) {
            return keyNotDetermined(evaluation, instance, unresolvedKeys);
        }
        if (refusal instanceof SingleUseTokenException token) {
            return tokenRefused(token, instance);
        }
        if (refusal instanceof LockNotAcquiredException busy) {
            return lockBusy(busy, instance);
        }
        if (refusal instanceof RedisUnavailableException unavailable) {
            return redisUnavailable(unavailable, instance);
        }
        return null;
    }

    /** 429 with the RateLimit fields of every decision of the request and a {@code quota-exceeded} problem. */
    public static ResponseEntity<ProblemDetail> tooManyRequests(Decision decision, URI instance, boolean allPolicies) {
        ResponseEntity.BodyBuilder answer = ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS);
        RateLimitHeaders.of(decision, allPolicies).forEach((name, value) -> answer.header(name, value));
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.TOO_MANY_REQUESTS,
                "Too many requests; retry after " + Math.max(1, RateLimitHeaders.seconds(decision.retryAfter()))
                        + " s.");
        problem.setType(QUOTA_EXCEEDED);
        problem.setTitle(TOO_MANY_TITLE);
        problem.setInstance(instance);
        problem.setProperty("violated-policies", RateLimitHeaders.violatedPolicies(decision));
        return answer.contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }

    /**
     * 429 for a concurrency limit: {@code Retry-After}, and RateLimit fields with the draft's
     * {@code qu="concurrent-requests"} quota unit (no window: the quota is of calls in progress).
     */
    public static ResponseEntity<ProblemDetail> tooManyInProgress(
            ConcurrencyLimitExceededException exception, URI instance) {
        long seconds = Math.max(1, RateLimitHeaders.seconds(exception.retryAfter()));
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.TOO_MANY_REQUESTS, "Too many requests in progress; retry after " + seconds + " s.");
        problem.setType(QUOTA_EXCEEDED);
        problem.setTitle(TOO_MANY_TITLE);
        problem.setInstance(instance);
        problem.setProperty("violated-policies", java.util.List.of(exception.name()));
        ResponseEntity.BodyBuilder answer = ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS);
        RateLimitHeaders.inProgress(exception).forEach((name, value) -> answer.header(name, value));
        return answer.contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }

    /**
     * 400 for a key or cost that could not be determined from this request (a missing optional parameter, a header
     * the rule needs, a cost outside what the limit allows), titled by which it was. Logged as one line at most every 10 s, with the count, never a stack trace per request; the
     * problem never shows an expression.
     */
    public static ResponseEntity<ProblemDetail> keyNotDetermined(
            RateLimitEvaluationException exception, URI instance, UnresolvedKeys unresolvedKeys) {
        long count = unresolvedKeys.count.incrementAndGet();
        String what = exception.aboutCost() ? "cost" : "key";
        if (unresolvedKeys.throttle.due(count == 1)) {
            log.warn("Rate limit {} not determined, answered 400 ({} so far): {}", what, count, exception.getMessage());
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, exception.clientDetail());
        problem.setTitle(exception.aboutCost() ? "Invalid rate limit cost" : "Missing rate limit key");
        problem.setInstance(instance);
        return ResponseEntity.status(HttpStatus.BAD_REQUEST)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }

    /** Missing or malformed → 400, unknown or expired → 404, already used → 409; never echoes the token. */
    public static ResponseEntity<ProblemDetail> tokenRefused(SingleUseTokenException exception, URI instance) {
        HttpStatus status =
                switch (exception.status()) {
                    case MISSING, MALFORMED -> HttpStatus.BAD_REQUEST;
                    case UNKNOWN -> HttpStatus.NOT_FOUND;
                    case ALREADY_USED -> HttpStatus.CONFLICT;
                    case CONSUMED -> HttpStatus.INTERNAL_SERVER_ERROR;
                };
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, exception.getMessage() + ".");
        problem.setTitle(
                switch (exception.status()) {
                    case MISSING -> "Missing single-use token";
                    case MALFORMED -> "Malformed single-use token";
                    case UNKNOWN -> "Unknown or expired single-use token";
                    case ALREADY_USED -> "Single-use token already used";
                    case CONSUMED -> "Internal error";
                });
        problem.setProperty("purpose", exception.purpose());
        problem.setInstance(instance);
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }

    /** 409 with {@code Retry-After} from the lock's remaining lease (whole seconds, rounded up, at least 1). */
    public static ResponseEntity<ProblemDetail> lockBusy(LockNotAcquiredException exception, URI instance) {
        long seconds = Math.max(1, RateLimitHeaders.seconds(exception.retryAfter()));
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.CONFLICT,
                "Another request holds the lock for this resource; retry after " + seconds + " s.");
        problem.setTitle("Resource busy");
        problem.setInstance(instance);
        return ResponseEntity.status(HttpStatus.CONFLICT)
                .header(RateLimitHeaders.RETRY_AFTER, Long.toString(seconds))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }

    /** 503 with {@code Retry-After}: Redis could not decide (a fail-closed limit, a token, a lock). */
    public static ResponseEntity<ProblemDetail> redisUnavailable(RedisUnavailableException exception, URI instance) {
        long seconds = Math.max(1, RateLimitHeaders.seconds(exception.retryAfter()));
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.SERVICE_UNAVAILABLE,
                "The request could not be checked right now; retry after " + seconds + " s.");
        problem.setTitle(UNAVAILABLE_TITLE);
        problem.setInstance(instance);
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(RateLimitHeaders.RETRY_AFTER, Long.toString(seconds))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }
}
