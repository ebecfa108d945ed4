package io.github.ratelimit.spring.reactive;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.spring.web.ClientAddresses;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;

/**
 * The caller of one reactive request, put into the Reactor context by {@link RateLimitWebFilter} under the key
 * {@code CallerContext.class}, where the interceptors of reactive methods find it: the exchange's principal and client
 * address, and the response that allowed decisions add RateLimit headers to.
 */
final class ReactiveCallerContext implements CallerContext {

    private final ServerWebExchange exchange;
    private final @Nullable String principalName;
    private final ClientAddresses clients;
    private final boolean allPolicies;
    private @Nullable String clientAddress;

    ReactiveCallerContext(
            ServerWebExchange exchange, @Nullable String principalName, ClientAddresses clients, boolean allPolicies) {
        this.exchange = exchange;
        this.principalName = principalName;
        this.clients = clients;
        this.allPolicies = allPolicies;
    }

    /** The client's address of a reactive request (see {@link ClientAddresses}). */
    static @Nullable String clientAddress(ClientAddresses clients, ServerHttpRequest request) {
        InetSocketAddress remote = request.getRemoteAddress();
        String peer = remote == null
                ? null
                : remote.getAddress() != null ? remote.getAddress().getHostAddress() : remote.getHostString();
        return clients.clientAddress(peer, name -> request.getHeaders().get(name));
    }

    @Override
    public @Nullable Object request() {
        return exchange.getRequest();
    }

    @Override
    public @Nullable String principalName() {
        return principalName;
    }

    @Override
    public @Nullable String header(String name) {
        return exchange.getRequest().getHeaders().getFirst(name);
    }

    @Override
    public @Nullable String clientAddress() {
        String address = clientAddress;
        if (address == null) {
            address = clientAddress(clients, exchange.getRequest());
            clientAddress = address;
        }
        return address;
    }

    @Override
    public void allowed(Decision decision) {
        if (!exchange.getResponse().isCommitted()) {
            RateLimitHeaders.of(record(exchange, decision), allPolicies)
                    .forEach(exchange.getResponse().getHeaders()::set);
        }
    }

    /** Adds a decision to those of the exchange and returns all of them as one (see {@link RateLimitHeaders}). */
    static Decision record(ServerWebExchange exchange, Decision decision) {
        return RateLimitHeaders.record(exchange.getAttributes()::get, exchange.getAttributes()::put, decision);
    }
}
