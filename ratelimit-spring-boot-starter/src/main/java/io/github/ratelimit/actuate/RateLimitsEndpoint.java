package io.github.ratelimit.actuate;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.DeclaredLimit;
import io.github.ratelimit.core.DeclaredLimits;
import io.github.ratelimit.core.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimiter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code ratelimits} endpoint: every limit the application knows (annotations and filter rules, with their
 * source); the state of one client under one limit name (read without taking anything); and, only when
 * {@code ratelimit.actuator.reset-enabled=true}, forgetting a client's counts.
 *
 * <p>A client is named by its key and value, as the limit identifies it: {@code key=#ip&value=203.0.113.9}
 * for an annotation keyed by {@code #ip}, {@code key=ip&value=203.0.113.9} for a rule keyed by {@code ip},
 * {@code key=header:x-api-key&value=...} for a header rule.
 */
@Endpoint(id = "ratelimits")
public class RateLimitsEndpoint {

    private final ObjectProvider<DeclaredLimits> sources;
    private final RateLimiter limiter;
    private final boolean resetEnabled;

    public RateLimitsEndpoint(ObjectProvider<DeclaredLimits> sources, RateLimiter limiter, boolean resetEnabled) {
        this.sources = sources;
        this.limiter = limiter;
        this.resetEnabled = resetEnabled;
    }

    @ReadOperation
    public Map<String, Object> limits() {
        List<Map<String, Object>> limits = new ArrayList<>();
        for (DeclaredLimit declared : declared()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", declared.limit().name());
            entry.put("limit", declared.limit().limit());
            entry.put("windowMs", declared.limit().windowMs());
            entry.put("algorithm", declared.limit().algorithm());
            entry.put("keys", declared.keys());
            entry.put("shadow", declared.shadow());
            entry.put("failClosed", declared.failClosed());
            entry.put("source", declared.source());
            limits.add(entry);
        }
        return Map.of("limits", limits, "resetEnabled", resetEnabled);
    }

    @ReadOperation
    public WebEndpointResponse<Map<String, Object>> state(@Selector String name, String key, String value) {
        List<DeclaredLimit> matching = named(name, key);
        if (matching.isEmpty()) {
            return new WebEndpointResponse<>(Map.of("error", "no limit named '" + name + "' with key " + key), 404);
        }
        String identifier = key + '\u0000' + value;
        List<LimitRequest> probes = matching.stream()
                .map(d -> new LimitRequest(d.limit(), identifier, 0))
                .toList();
        Decision decision = limiter.tryAcquire(probes); // cost 0: reads, takes nothing
        List<Map<String, Object>> states = new ArrayList<>();
        for (LimitOutcome outcome : decision.outcomes()) {
            Map<String, Object> state = new LinkedHashMap<>();
            state.put("limit", outcome.request().limit().limit());
            state.put("windowMs", outcome.request().limit().windowMs());
            state.put("algorithm", outcome.request().limit().algorithm());
            state.put("remaining", outcome.remaining());
            state.put("resetMs", outcome.resetAfter().toMillis());
            states.add(state);
        }
        return new WebEndpointResponse<>(Map.of("name", name, "states", states), 200);
    }

    @DeleteOperation
    public WebEndpointResponse<Map<String, Object>> reset(@Selector String name, String key, String value) {
        if (!resetEnabled) {
            return new WebEndpointResponse<>(
                    Map.of("error", "resetting is disabled; set ratelimit.actuator.reset-enabled=true"), 403);
        }
        List<DeclaredLimit> matching = named(name, key);
        if (matching.isEmpty()) {
            return new WebEndpointResponse<>(Map.of("error", "no limit named '" + name + "' with key " + key), 404);
        }
        String identifier = key + '\u0000' + value;
        matching.stream().map(DeclaredLimit::limit).distinct().forEach(limit -> limiter.reset(limit, identifier));
        return new WebEndpointResponse<>(Map.of("name", name, "reset", matching.size()), 200);
    }

    private List<DeclaredLimit> named(String name, String key) {
        return declared().stream()
                .filter(d -> d.limit().name().equals(name) && d.keys().contains(key))
                .toList();
    }

    private List<DeclaredLimit> declared() {
        return sources.stream().flatMap(s -> s.declaredLimits().stream()).toList();
    }
}
