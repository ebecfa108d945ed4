package io.github.ratelimit.web;

import io.github.ratelimit.core.RateLimitExceededException;
import java.net.URI;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers a rejected call with 429 Too Many Requests: {@code Retry-After}, the RateLimit headers and an RFC
 * 9457 problem of the draft's {@code quota-exceeded} type. It has the lowest precedence, so an application's
 * own {@code @ExceptionHandler} for {@link RateLimitExceededException} wins; or replace this bean.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class RateLimitExceptionHandler {

    /** The problem type registered for exceeded quotas. */
    public static final URI QUOTA_EXCEEDED =
            URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<ProblemDetail> rateLimitExceeded(RateLimitExceededException exception) {
        HttpHeaders headers = new HttpHeaders();
        RateLimitHeaders.of(exception.decision()).forEach(headers::set);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(
                HttpStatus.TOO_MANY_REQUESTS,
                "Too many requests; retry after " + headers.getFirst(RateLimitHeaders.RETRY_AFTER) + " s.");
        problem.setType(QUOTA_EXCEEDED);
        problem.setTitle("Request cannot be satisfied as assigned quota has been exceeded");
        problem.setProperty("violated-policies", RateLimitHeaders.violatedPolicies(exception.decision()));
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                .headers(headers)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }
}
