package io.github.ratelimit.web;

import io.github.ratelimit.core.TokenConsumption;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Keeps Spring MVC from binding a {@link TokenConsumption} parameter from the request: it passes null, and
 * the {@code @SingleUse} interceptor puts the consumed token there before the method runs.
 */
public final class TokenConsumptionArgumentResolver implements HandlerMethodArgumentResolver {

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.getParameterType() == TokenConsumption.class;
    }

    @Override
    public Object resolveArgument(
            MethodParameter parameter,
            ModelAndViewContainer mavContainer,
            NativeWebRequest webRequest,
            WebDataBinderFactory binderFactory) {
        return null;
    }
}
