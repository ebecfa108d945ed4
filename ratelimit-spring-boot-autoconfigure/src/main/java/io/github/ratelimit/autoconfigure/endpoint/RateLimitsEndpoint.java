package io.github.ratelimit.autoconfigure.endpoint;

import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.spring.endpoint.AdaptiveLimitOperations;
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
 * resets, overrides, blocks, penalties and locks) at {@code /actuator/ratelimits}, and those of
 * {@link AdaptiveLimitOperations} under {@code /actuator/ratelimits/adaptive}, each answer handed on unchanged.
 */
@Endpoint(id = "ratelimits")
class RateLimitsEndpoint implements RateLimitEvents.Source {

    private static final String ADAPTIVE = AdaptiveLimitOperations.ADAPTIVE;

    private final RateLimitOperations operations;
    private final AdaptiveLimitOperations adaptive;

    RateLimitsEndpoint(RateLimitOperations operations, AdaptiveLimitOperations adaptive) {
        this.operations = operations;
        this.adaptive = adaptive;
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
        if (ADAPTIVE.equals(name) && key == null && value == null && path == null) {
            return web(adaptive.list());
        }
        return web(operations.state(name, key, value, path));
    }

    /** {@code /locks/{lock name}?key=...} or {@code /adaptive/{limit name}?value=...}. */
    @ReadOperation
    public WebEndpointResponse<Map<String, Object>> entry(
            @Selector String name, @Selector String entry, @Nullable String key, @Nullable String value) {
        if (ADAPTIVE.equals(name)) {
            return web(adaptive.status(entry, value));
        }
        return web(operations.lock(name, entry, key));
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
            @Nullable Integer min,
            @Nullable Integer max,
            @Nullable String value,
            @Nullable Principal principal) {
        if (ADAPTIVE.equals(name)) {
            if (window != null || shadow != null) {
                return web(new OperatorAnswer(
                        Map.of(
                                "error",
                                "an adaptive limit is steered with limit (a pin), min and max; not window or"
                                        + " shadow"),
                        400));
            }
            return web(adaptive.steer(action, limit, min, max, value, principal));
        }
        if (min != null || max != null || value != null) {
            return web(new OperatorAnswer(
                    Map.of(
                            "error",
                            "min, max and value steer an adaptive limit: POST /actuator/ratelimits/adaptive/"
                                    + "{name}"),
                    400));
        }
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
        if (ADAPTIVE.equals(name)) {
            return web(adaptive.clear(action, value, principal));
        }
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
