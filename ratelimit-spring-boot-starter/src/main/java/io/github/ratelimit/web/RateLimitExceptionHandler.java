package io.github.ratelimit.web;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.RateLimitExceededException;
import java.net.URI;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

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

    static final String TITLE = "Request cannot be satisfied as assigned quota has been exceeded";

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<ProblemDetail> rateLimitExceeded(RateLimitExceededException exception) {
        HttpHeaders headers = new HttpHeaders();
        Decision decision = exception.decision();
        List<Decision> earlier = RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes servlet
                ? RateLimitHeaders.remember(servlet.getRequest(), decision)
                : List.of(decision);
        RateLimitHeaders.of(RateLimitHeaders.combine(earlier)).forEach(headers::set);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, detail(decision));
        problem.setType(QUOTA_EXCEEDED);
        problem.setTitle(TITLE);
        problem.setProperty("violated-policies", RateLimitHeaders.violatedPolicies(exception.decision()));
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                .headers(headers)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }

    static String detail(Decision decision) {
        return "Too many requests; retry after " + Math.max(1, RateLimitHeaders.seconds(decision.retryAfter())) + " s.";
    }
}
