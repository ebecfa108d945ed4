package io.github.ratelimit.spring.reactive;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.call.CallRunner;
import io.github.ratelimit.spring.definition.FilterRuleSpec;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.PathRules;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.definition.internal.RuleSlots;
import io.github.ratelimit.spring.internal.FromRedis;
import io.github.ratelimit.spring.internal.HttpFailures;
import io.github.ratelimit.spring.web.ClientAddresses;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.http.server.RequestPath;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The reactive side's filter: applies the rules of {@code ratelimit.filter.rules} to requests as the servlet
 * the servlet filter does (the same rules, client addresses, shadow mode, fail policy and 429 answer), without
 * blocking any thread; and puts the caller of every request into the Reactor context, where the interceptors of
 * reactive {@code @RateLimited}, {@code @SingleUse} and {@code @Locked} methods find it. Refusals are error signals
 * that {@link RateLimitWebExceptionHandler} answers.
 */
public final class RateLimitWebFilter implements WebFilter, Ordered, PathRules.Applied {

    private volatile PathRules rules;
    private final KeyResolvers keys;
    private final @Nullable RateLimitDecisions decisions;
    private final ClientAddresses clients;
    private final boolean allPolicies;
    private final int order;
    private final Supplier<@Nullable ConcurrencyLimiter> slots;

    /**
     * @param rules the rules (empty for none); each is checked now and fails with {@link InvalidFilterRuleException}
     * @param excludedPaths path patterns no rule applies to
     * @param decisions the decision flow shared with the annotations; null when rate limits are off
     * @param plans the plan groups rules may name
     * @param clients how the client address is found
     * @param allPolicies whether the RateLimit fields carry every item instead of what the client needs
     * @param order the filter's order among web filters ({@code ratelimit.filter.order})
     * @param keys the kinds of key rules may name
     */
    public RateLimitWebFilter(
            List<FilterRuleSpec> rules,
            List<String> excludedPaths,
            @Nullable RateLimitDecisions decisions,
            Plans plans,
            ClientAddresses clients,
            boolean allPolicies,
            int order,
            KeyResolvers keys) {
        this(rules, excludedPaths, decisions, plans, clients, allPolicies, order, keys, () -> null);
    }

    /** @param slots the store of the rules' concurrency limits, or a supplier of null when there is none */
    public RateLimitWebFilter(
            List<FilterRuleSpec> rules,
            List<String> excludedPaths,
            @Nullable RateLimitDecisions decisions,
            Plans plans,
            ClientAddresses clients,
            boolean allPolicies,
            int order,
            KeyResolvers keys,
            Supplier<@Nullable ConcurrencyLimiter> slots) {
        this.slots = slots;
        this.rules = new PathRules(decisions == null ? List.of() : rules, excludedPaths, plans, keys);
        this.keys = keys;
        this.decisions = decisions;
        this.clients = clients;
        this.allPolicies = allPolicies;
        this.order = order;
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public PathRules pathRules() {
        return rules;
    }

    @Override
    public Runnable prepare(PathRules.Specs rules, Plans plans) {
        PathRules refreshed =
                new PathRules(decisions == null ? List.of() : rules.rules(), rules.excludedPaths(), plans, keys);
        return () -> this.rules = refreshed;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return exchange.getPrincipal()
                .map(principal -> Optional.ofNullable(principal.getName()))
                .defaultIfEmpty(Optional.empty())
                .flatMap(principal -> {
                    ReactiveCallerContext caller =
                            new ReactiveCallerContext(exchange, principal.orElse(null), clients, allPolicies);
                    return run(exchange, chain, caller)
                            .contextWrite(context -> context.put(CallerContext.class, caller));
                });
    }

    /**
     * Runs the rest of the chain once the rules admitted the request; under rules that count failures only, a status of
     * 400 or more ends the call as failed before the answer is committed, so a caller never sees its failed answer
     * before the failure is counted and its next call cannot slip past the limit (an error is the runner's to tell).
     */
    private Mono<Void> run(ServerWebExchange exchange, WebFilterChain chain, ReactiveCallerContext caller) {
        PathRules rules = this.rules; // one set of rules per request, whatever a refresh does meanwhile
        if (rules.isEmpty()) {
            return chain.filter(exchange);
        }
        ServerHttpRequest request = exchange.getRequest();
        RequestPath path = request.getPath();
        RateLimitDecisions decisions = Objects.requireNonNull(this.decisions); // there are rules, so limits are on
        CallRunner.Start start = new CallRunner.Start(
                decisions,
                caller,
                view -> rules.call(
                        request.getMethod().name(),
                        path.pathWithinApplication().value(),
                        path.pathWithinApplication(),
                        view,
                        decisions),
                HttpFailures.STATUS);
        return CallRunner.mono(start, end -> {
            if (end.awaited()) {
                exchange.getResponse()
                        .beforeCommit(() -> Mono.defer(() -> {
                            var status = exchange.getResponse().getStatusCode();
                            // a success is not the end yet: the body may still fail once the headers are committed
                            return status == null
                                    ? Mono.<Void>empty()
                                    : FromRedis.mono(end.answeringAsync(status.value()));
                        }));
            }
            List<RuleSlots.Limit> limits = rules.slots(request.getMethod().name(), path.pathWithinApplication());
            if (limits.isEmpty()) {
                return chain.filter(exchange);
            }
            // the rules' concurrency slots, given back with the answer's status (a refusal is an error signal, 429)
            return FromRedis.mono(RuleSlots.takeAsync(limits, slots.get())).flatMap(held -> chain.filter(exchange)
                    .doOnSuccess(done -> {
                        var status = exchange.getResponse().getStatusCode();
                        held.answered(status == null ? 200 : status.value());
                    })
                    .doOnError(error -> held.failed())
                    .doOnCancel(held::failed));
        });
    }
}
