package io.github.ratelimit.spring.servlet;

import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.spring.web.Refusals;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers a rejected call with 429 Too Many Requests: {@code Retry-After}, the RateLimit headers of every decision of
 * the request (path rules and annotations) and an RFC 9457 problem of the draft's {@code quota-exceeded} type; and a
 * call whose key could not be determined from the request with 400 and a problem that never shows an expression. The
 * path-rule filter answers through these same handlers. Lowest precedence, so an application's own
 * {@code @ExceptionHandler} wins; or replace this bean.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class RateLimitExceptionHandler {

    private final boolean allPolicies;
    private final Refusals.UnresolvedKeys unresolvedKeys = new Refusals.UnresolvedKeys();

    /** RateLimit fields that carry what the client needs: the refusing items. */
    public RateLimitExceptionHandler() {
        this(false);
    }

    /** @param allPolicies whether the RateLimit fields carry every item of the request's decisions */
    public RateLimitExceptionHandler(boolean allPolicies) {
        this.allPolicies = allPolicies;
    }

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<ProblemDetail> rateLimitExceeded(
            RateLimitExceededException exception, HttpServletRequest request) {
        return Refusals.tooManyRequests(
                ServletRequests.record(request, exception.decision()),
                URI.create(request.getRequestURI()),
                allPolicies);
    }

    /** 429 for a concurrency limit, with {@code qu="concurrent-requests"} in {@code RateLimit-Policy}. */
    @ExceptionHandler(ConcurrencyLimitExceededException.class)
    public ResponseEntity<ProblemDetail> concurrencyLimitExceeded(
            ConcurrencyLimitExceededException exception, HttpServletRequest request) {
        return Refusals.tooManyInProgress(exception, URI.create(request.getRequestURI()));
    }

    /**
     * 400 for a key or cost that could not be determined from this request (a missing optional parameter, a header
     * the rule needs). Logged as one line at most every 10 s, with the count, never a stack trace per request.
     */
    @ExceptionHandler(RateLimitEvaluationException.class)
    public ResponseEntity<ProblemDetail> keyNotDetermined(
            RateLimitEvaluationException exception, HttpServletRequest request) {
        return Refusals.keyNotDetermined(exception, URI.create(request.getRequestURI()), unresolvedKeys);
    }
}
