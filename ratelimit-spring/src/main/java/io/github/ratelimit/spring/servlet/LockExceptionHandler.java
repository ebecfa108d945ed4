package io.github.ratelimit.spring.servlet;

import io.github.ratelimit.core.locks.LockNotAcquiredException;
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
 * Answers a busy lock with 409 Conflict, {@code Retry-After} from the lock's remaining lease (whole seconds,
 * rounded up, at least 1) and an RFC 9457 problem. Lowest precedence, so an application's own
 * {@code @ExceptionHandler} wins; or replace this bean.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockExceptionHandler {

    @ExceptionHandler(LockNotAcquiredException.class)
    public ResponseEntity<ProblemDetail> lockBusy(LockNotAcquiredException exception, HttpServletRequest request) {
        return Refusals.lockBusy(exception, URI.create(request.getRequestURI()));
    }
}
