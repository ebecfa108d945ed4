package io.github.ratelimit.autoconfigure.endpoint;

import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.spring.endpoint.OperatorAnswer;
import io.github.ratelimit.spring.endpoint.RateLimitOperations;
import java.security.Principal;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code ratelimits} actuator endpoint: the operations of {@link RateLimitOperations} (limits, a client's state,
 * resets, overrides, blocks, penalties and locks) at {@code /actuator/ratelimits}, each answer handed on unchanged.
 */
@Endpoint(id = "ratelimits")
class RateLimitsEndpoint implements RateLimitEvents.Source {

    private final RateLimitOperations operations;

    RateLimitsEndpoint(RateLimitOperations operations) {
        this.operations = operations;
    }

    @Override
    public RateLimitEvents events() {
        return operations.events();
    }

    @ReadOperation
    public Map<String, Object> limits() {
        return operations.limits();
    }

    @ReadOperation
    public WebEndpointResponse<Map<String, Object>> state(
            @Selector String name, @Nullable String key, @Nullable String value, @Nullable String path) {
        return web(operations.state(name, key, value, path));
    }

    @ReadOperation
    public WebEndpointResponse<Map<String, Object>> lock(
            @Selector String name, @Selector String lock, @Nullable String key) {
        return web(operations.lock(name, lock, key));
    }

    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> write(
            @Selector String name,
            @Nullable String key,
            @Nullable String value,
            @Nullable String duration,
            @Nullable Principal principal) {
        return web(operations.write(name, key, value, duration, principal));
    }

    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> override(
            @Selector String name,
            @Selector String action,
            @Nullable Long limit,
            @Nullable String window,
            @Nullable Boolean shadow,
            @Nullable Principal principal) {
        return web(operations.override(name, action, limit, window, shadow, principal));
    }

    @DeleteOperation
    public WebEndpointResponse<Map<String, Object>> reset(
            @Selector String name, String key, String value, @Nullable String path, @Nullable Principal principal) {
        return web(operations.reset(name, key, value, path, principal));
    }

    @DeleteOperation
    public WebEndpointResponse<Map<String, Object>> removeOverride(
            @Selector String name,
            @Selector String action,
            @Nullable String key,
            @Nullable String value,
            @Nullable String path,
            @Nullable Principal principal) {
        return web(operations.removeOverride(name, action, key, value, path, principal));
    }

    /** {@link #reset(String, String, String, String, Principal)} without a principal. */
    public WebEndpointResponse<Map<String, Object>> reset(String name, String key, String value, String path) {
        return reset(name, key, value, path, null);
    }

    private static WebEndpointResponse<Map<String, Object>> web(OperatorAnswer answer) {
        Map<String, Object> body = answer.body();
        return body == null
                ? new WebEndpointResponse<>(answer.status())
                : new WebEndpointResponse<>(body, answer.status());
    }
}
