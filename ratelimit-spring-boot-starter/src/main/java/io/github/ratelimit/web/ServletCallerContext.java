package io.github.ratelimit.web;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.Decision;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The caller of the current servlet request: its principal and its address (see {@link ClientAddresses}),
 * and the response that allowed decisions add RateLimit headers to, together with those of the filter.
 */
public final class ServletCallerContext implements CallerContext {

    private final ClientAddresses clients;
    private final boolean allPolicies;

    /**
     * @param clients how the client address is found
     * @param allPolicies whether the RateLimit fields carry every item instead of what the client needs
     */
    public ServletCallerContext(ClientAddresses clients, boolean allPolicies) {
        this.clients = clients;
        this.allPolicies = allPolicies;
    }

    /** A caller context whose RateLimit fields carry what the client needs. */
    public ServletCallerContext(ClientAddresses clients) {
        this(clients, false);
    }

    @Override
    public Object request() {
        return currentRequest();
    }

    @Override
    public String principalName() {
        HttpServletRequest request = currentRequest();
        return request == null ? null : ServletRequests.principalName(request);
    }

    @Override
    public String clientAddress() {
        HttpServletRequest request = currentRequest();
        return request == null ? null : ServletRequests.clientAddress(clients, request);
    }

    @Override
    public void allowed(Decision decision) {
        if (RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes) {
            HttpServletResponse response = attributes.getResponse();
            if (response != null && !response.isCommitted()) {
                Decision all = ServletRequests.record(attributes.getRequest(), decision);
                RateLimitHeaders.of(all, allPolicies).forEach(response::setHeader);
            }
        }
    }

    private static HttpServletRequest currentRequest() {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        return attributes instanceof ServletRequestAttributes servlet ? servlet.getRequest() : null;
    }
}
