package io.github.ratelimit.gateway;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.Decision;
import org.jspecify.annotations.Nullable;

/**
 * The caller of a request on a gateway route: the application's caller of the request, and the key the route's
 * {@code KeyResolver} found, which a limit with the key {@code route} counts.
 */
final class RouteCaller implements CallerContext {

    private final CallerContext caller;
    private final String routeKey;

    RouteCaller(CallerContext caller, String routeKey) {
        this.caller = caller;
        this.routeKey = routeKey;
    }

    /** The route's key of a caller, or null outside a route that resolves one. */
    static @Nullable String routeKey(CallerContext caller) {
        return caller instanceof RouteCaller route ? route.routeKey : null;
    }

    @Override
    public @Nullable Object request() {
        return caller.request();
    }

    @Override
    public @Nullable String principalName() {
        return caller.principalName();
    }

    @Override
    public @Nullable String clientAddress() {
        return caller.clientAddress();
    }

    @Override
    public @Nullable String header(String name) {
        return caller.header(name);
    }

    @Override
    public void allowed(Decision decision) {
        caller.allowed(decision);
    }
}
