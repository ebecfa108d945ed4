package io.github.ratelimit.aop;

import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.SingleUseTokenException;
import io.github.ratelimit.core.SingleUseTokens;
import io.github.ratelimit.core.TokenConsumption;
import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.expression.EvaluationException;

/**
 * Consumes the call's token before the method body runs; hands its metadata to a {@link TokenConsumption}
 * parameter; gives the use back if the method fails and the declaration asks for it.
 */
final class SingleUseInterceptor implements org.aopalliance.intercept.MethodInterceptor {

    private final SingleUseMethods methods;
    private final ObjectProvider<SingleUseTokens> tokens;
    private final ObjectProvider<CallerContext> caller;

    SingleUseInterceptor(
            SingleUseMethods methods, ObjectProvider<SingleUseTokens> tokens, ObjectProvider<CallerContext> caller) {
        this.methods = methods;
        this.tokens = tokens;
        this.caller = caller;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = AnnotationAdvisor.targetMethod(invocation);
        SingleUseMethods.SingleUseMethod declaration;
        String token;
        TokenConsumption consumption;
        try {
            declaration = methods.get(method);
            token = token(declaration, target, invocation.getArguments());
            consumption = tokens.getObject().consume(declaration.purpose(), token);
            consumption.orElseThrow();
        } catch (RuntimeException e) {
            return AnnotationAdvisor.refuse(invocation, e);
        }
        if (declaration.consumptionParameter() >= 0) {
            invocation.getArguments()[declaration.consumptionParameter()] = consumption;
        }
        if (declaration.onFailure() != SingleUse.OnFailure.RELEASE) {
            return invocation.proceed();
        }
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            release(declaration, token, failure);
            throw failure;
        }
        if (result instanceof CompletionStage<?> stage) {
            return stage.whenComplete((value, failure) -> {
                if (failure != null) {
                    release(declaration, token, failure);
                }
            });
        }
        return result;
    }

    private String token(SingleUseMethods.SingleUseMethod declaration, Object target, Object[] args) {
        Object value;
        try {
            value = declaration
                    .token()
                    .getValue(declaration
                            .expressions()
                            .context(target, args, caller.getIfAvailable(() -> CallerContext.NONE)));
        } catch (EvaluationException e) {
            throw new SingleUseTokenException(TokenConsumption.Status.MISSING, declaration.purpose());
        }
        return value == null ? null : value.toString();
    }

    private void release(SingleUseMethods.SingleUseMethod declaration, String token, Throwable failure) {
        try {
            tokens.getObject().release(declaration.purpose(), token);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
