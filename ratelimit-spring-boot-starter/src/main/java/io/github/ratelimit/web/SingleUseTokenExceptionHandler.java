package io.github.ratelimit.web;

import io.github.ratelimit.core.SingleUseTokenException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
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
    public ResponseEntity<ProblemDetail> tokenRefused(SingleUseTokenException exception) {
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
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }
}
