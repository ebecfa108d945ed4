package io.github.ratelimit.spring.servlet;

import io.github.ratelimit.core.RedisUnavailableException;
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
 * Answers a call refused because Redis could not decide (a fail-closed limit, a single-use token, a lock) with
 * 503 Service Unavailable, {@code Retry-After} and an RFC 9457 problem. Lowest precedence; replace the bean
 * or add your own {@code @ExceptionHandler} to answer differently.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class RedisUnavailableHandler {

    @ExceptionHandler(RedisUnavailableException.class)
    public ResponseEntity<ProblemDetail> redisUnavailable(
            RedisUnavailableException exception, HttpServletRequest request) {
        return Refusals.redisUnavailable(exception, URI.create(request.getRequestURI()));
    }
}
