package io.github.ratelimit.spring.aop;

import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import org.springframework.core.MethodParameter;
import org.springframework.web.reactive.BindingContext;
import org.springframework.web.reactive.result.method.HandlerMethodArgumentResolver;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Keeps Spring WebFlux from binding {@link TokenConsumption} and {@link LockHandle} parameters from the request: it
 * passes null, and the {@code @SingleUse} or {@code @Locked} interceptor puts the real value there before the method
 * runs.
 */
public final class ReactiveInterceptorArgumentResolver implements HandlerMethodArgumentResolver {

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        Class<?> type = parameter.getParameterType();
        return type == TokenConsumption.class || type == LockHandle.class;
    }

    @Override
    public Mono<Object> resolveArgument(
            MethodParameter parameter, BindingContext bindingContext, ServerWebExchange exchange) {
        return Mono.empty();
    }
}
