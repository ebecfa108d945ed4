package io.github.ratelimit.spring.aop;

import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.spring.internal.MethodExpressions;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;

/** Compiles and caches the {@link SingleUse} declarations of methods. */
final class SingleUseMethods {

    /** One compiled declaration; {@code consumptionParameter} is -1 when the method takes no TokenConsumption. */
    record SingleUseMethod(
            MethodExpressions expressions,
            String purpose,
            Expression token,
            SingleUse.OnFailure onFailure,
            int consumptionParameter) {}

    private final Map<Method, SingleUseMethod> compiled = new ConcurrentHashMap<>();

    SingleUseMethod get(Method method) {
        SingleUseMethod found = compiled.get(method);
        return found != null ? found : compiled.computeIfAbsent(method, SingleUseMethods::compile);
    }

    private static SingleUseMethod compile(Method method) {
        MethodExpressions expressions = new MethodExpressions(method, "SingleUse");
        SingleUse annotation = AnnotatedElementUtils.findMergedAnnotation(method, SingleUse.class);
        if (annotation == null) {
            throw expressions.invalid("no @SingleUse annotation");
        }
        if (!Messages.isName(annotation.purpose())) {
            throw expressions.invalid(Messages.badName("purpose", annotation.purpose()));
        }
        Expression token = expressions.parse(annotation.token(), "token");
        int parameter = expressions.parameterOfType(TokenConsumption.class);
        return new SingleUseMethod(expressions, annotation.purpose(), token, annotation.onFailure(), parameter);
    }
}
