package io.github.ratelimit.spring.servlet;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.spring.web.ClientAddresses;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestWrapper;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the servlet side reads from a request, kept apart from the shared web code so that a reactive application
 * without the Servlet API never loads it.
 */
final class ServletRequests {

    private ServletRequests() {}

    /**
     * The client's address: the peer is read from the innermost request, beneath wrappers such as Spring's
     * {@code ForwardedHeaderFilter}, so that trust is decided by {@link ClientAddresses} alone.
     */
    static @Nullable String clientAddress(ClientAddresses clients, HttpServletRequest request) {
        return clients.clientAddress(innermost(request).getRemoteAddr(), name -> lines(request.getHeaders(name)));
    }

    static @Nullable String principalName(HttpServletRequest request) {
        Principal principal = request.getUserPrincipal();
        return principal == null ? null : principal.getName();
    }

    /** Adds a decision to those of the request and returns all of them as one (see {@link RateLimitHeaders}). */
    static Decision record(HttpServletRequest request, Decision decision) {
        return RateLimitHeaders.record(request::getAttribute, request::setAttribute, decision);
    }

    private static @Nullable List<String> lines(@Nullable Enumeration<String> headers) {
        return headers == null ? null : Collections.list(headers);
    }

    private static ServletRequest innermost(ServletRequest request) {
        ServletRequest current = request;
        while (current instanceof ServletRequestWrapper wrapper) {
            current = wrapper.getRequest();
        }
        return current;
    }
}
