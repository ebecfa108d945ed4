package io.github.ratelimit.web;

import io.github.ratelimit.aop.CallerContext;
import io.github.ratelimit.core.Decision;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.security.Principal;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The caller of the current servlet request: its principal and its TCP peer address, and the response that
 * allowed decisions add RateLimit headers to.
 */
public final class ServletCallerContext implements CallerContext {

    @Override
    public Object request() {
        return currentRequest();
    }

    @Override
    public String principalName() {
        HttpServletRequest request = currentRequest();
        Principal principal = request == null ? null : request.getUserPrincipal();
        return principal == null ? null : principal.getName();
    }

    @Override
    public String clientAddress() {
        HttpServletRequest request = currentRequest();
        return request == null ? null : request.getRemoteAddr();
    }

    @Override
    public void allowed(Decision decision) {
        if (RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes) {
            HttpServletResponse response = attributes.getResponse();
            if (response != null && !response.isCommitted()) {
                RateLimitHeaders.of(decision).forEach(response::setHeader);
            }
        }
    }

    private static HttpServletRequest currentRequest() {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        return attributes instanceof ServletRequestAttributes servlet ? servlet.getRequest() : null;
    }
}
