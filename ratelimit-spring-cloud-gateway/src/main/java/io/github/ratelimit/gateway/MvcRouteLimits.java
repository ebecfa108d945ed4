package io.github.ratelimit.gateway;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.call.CallRunner;
import io.github.ratelimit.spring.web.Refusals;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * What the {@code RateLimits} filter function of server-webmvc routes does: decides a request by the limits the route
 * names, then lets it through with the RateLimit fields, or answers the refusal as the application's exception
 * handlers do (429 with the fields, {@code Retry-After} and a problem; 400; 503).
 */
final class MvcRouteLimits {

    private final GatewayLimits limits;

    /** The limits this decides by, for the startup summary and the {@code ratelimits} endpoint. */
    GatewayLimits limits() {
        return limits;
    }

    private final CallerContext caller;
    private final boolean allPolicies;
    private final Refusals.UnresolvedKeys unresolvedKeys = new Refusals.UnresolvedKeys();
    private final Map<String, List<String>> checked = new ConcurrentHashMap<>();

    /**
     * @param caller the caller of the request on the calling thread (the servlet side's caller context)
     * @param allPolicies whether the RateLimit fields carry every item instead of what the client needs
     */
    MvcRouteLimits(GatewayLimits limits, CallerContext caller, boolean allPolicies) {
        this.limits = limits;
        this.caller = caller;
        this.allPolicies = allPolicies;
    }

    /** The names of a route's list, checked once per list. */
    List<String> names(String list) {
        return checked.computeIfAbsent(list, text -> limits.names(text, "filter RateLimits=" + text));
    }

    ServerResponse filter(String list, ServerRequest request, HandlerFunction<ServerResponse> next) throws Exception {
        RateLimitDecisions decisions = limits.decisions();
        if (decisions == null) {
            return next.handle(request);
        }
        List<String> names = names(list);
        String method = request.method().name();
        String path = request.requestPath().pathWithinApplication().value();
        return java.util.Objects.requireNonNull(CallRunner.run(
                new CallRunner.Start(
                        decisions,
                        caller,
                        view -> limits.call(names, method, path, view),
                        RateLimitDecisions.After.DEFAULT),
                refusal -> answer(refusal, path),
                end -> next.handle(request)));
    }

    /** The answer the application's exception handlers give a refusal (see {@link Refusals}). */
    private ServerResponse answer(RuntimeException refused, String path) {
        ResponseEntity<ProblemDetail> answer = Refusals.answer(
                refused,
                URI.create(path),
                () -> ((RateLimitExceededException) refused).decision(),
                allPolicies,
                unresolvedKeys);
        if (answer == null) {
            throw refused;
        }
        return ServerResponse.status(answer.getStatusCode())
                .headers(headers -> headers.addAll(answer.getHeaders()))
                .body(java.util.Objects.requireNonNull(answer.getBody()));
    }
}
