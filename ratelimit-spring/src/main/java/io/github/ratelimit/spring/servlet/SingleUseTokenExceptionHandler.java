package io.github.ratelimit.spring.servlet;

import io.github.ratelimit.core.tokens.SingleUseTokenException;
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
 * Answers a refused single-use token with an RFC 9457 problem that never echoes the token: missing or
 * malformed → 400, unknown or expired → 404, already used → 409. Lowest precedence, so an application's own
 * {@code @ExceptionHandler} wins; or replace this bean.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class SingleUseTokenExceptionHandler {

    @ExceptionHandler(SingleUseTokenException.class)
    public ResponseEntity<ProblemDetail> tokenRefused(SingleUseTokenException exception, HttpServletRequest request) {
        return Refusals.tokenRefused(exception, URI.create(request.getRequestURI()));
    }
}
