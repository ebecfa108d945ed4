package io.github.ratelimit.spring.servlet;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.spring.web.ClientAddresses;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
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
    public @Nullable Object request() {
        return bound().request();
    }

    @Override
    public @Nullable String principalName() {
        return bound().principalName();
    }

    @Override
    public @Nullable String clientAddress() {
        return bound().clientAddress();
    }

    @Override
    public @Nullable String header(String name) {
        return bound().header(name);
    }

    @Override
    public void allowed(Decision decision) {
        bound().allowed(decision);
    }

    /** The caller of the request on this thread, bound to it, for a pipeline that goes on on other threads. */
    @Override
    public CallerContext snapshot() {
        return bound();
    }

    private CallerContext bound() {
        return RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes
                ? new Bound(attributes.getRequest(), attributes.getResponse())
                : CallerContext.NONE;
    }

    /** The caller of one servlet request, whichever thread asks. */
    private final class Bound implements CallerContext {

        private final HttpServletRequest request;
        private final @Nullable HttpServletResponse response;

        Bound(HttpServletRequest request, @Nullable HttpServletResponse response) {
            this.request = request;
            this.response = response;
        }

        @Override
        public @Nullable Object request() {
            return request;
        }

        @Override
        public @Nullable String principalName() {
            return ServletRequests.principalName(request);
        }

        @Override
        public @Nullable String clientAddress() {
            return ServletRequests.clientAddress(clients, request);
        }

        @Override
        public @Nullable String header(String name) {
            return request.getHeader(name);
        }

        @Override
        public void allowed(Decision decision) {
            report(request, response, decision, allPolicies);
        }
    }

    /**
     * How every admission of a servlet request is told to its client, by an annotation or a path rule: the decision
     * joins those the request already met, and the RateLimit fields of all of them are set on the response, unless it
     * is already on its way.
     */
    static void report(
            HttpServletRequest request,
            @Nullable HttpServletResponse response,
            Decision decision,
            boolean allPolicies) {
        if (response != null && !response.isCommitted()) {
            Decision all = ServletRequests.record(request, decision);
            RateLimitHeaders.of(all, allPolicies).forEach(response::setHeader);
        }
    }
}
