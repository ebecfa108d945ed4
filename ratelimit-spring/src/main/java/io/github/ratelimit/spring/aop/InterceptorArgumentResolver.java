package io.github.ratelimit.spring.aop;

import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Keeps Spring MVC from binding {@link TokenConsumption} and {@link LockHandle} parameters from the request:
 * it passes null, and the {@code @SingleUse} or {@code @Locked} interceptor puts the real value there before
 * the method runs.
 */
public final class InterceptorArgumentResolver implements HandlerMethodArgumentResolver {

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        Class<?> type = parameter.getParameterType();
        return type == TokenConsumption.class || type == LockHandle.class;
    }

    @Override
    public @Nullable Object resolveArgument(
            MethodParameter parameter,
            @Nullable ModelAndViewContainer mavContainer,
            NativeWebRequest webRequest,
            @Nullable WebDataBinderFactory binderFactory) {
        return null;
    }
}
