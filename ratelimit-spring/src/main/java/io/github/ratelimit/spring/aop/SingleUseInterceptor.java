package io.github.ratelimit.spring.aop;

import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.tokens.SingleUseTokenException;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.spring.internal.invocation.DeferredInvocation;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.expression.EvaluationException;

/**
 * Consumes the call's token before the method body runs; hands its metadata to a {@link TokenConsumption}
 * parameter; gives the use back if the method fails and the declaration asks for it.
 */
final class SingleUseInterceptor implements org.aopalliance.intercept.MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(SingleUseInterceptor.class);

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
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = AnnotationAdvisor.targetMethod(invocation);
        SingleUseMethods.SingleUseMethod declaration = methods.get(method);
        Object deferred = DeferredInvocation.deferredOrNull(
                invocation,
                method,
                "@SingleUse",
                () -> caller.getIfAvailable(() -> CallerContext.NONE),
                () -> new Redemption(declaration, target, invocation.getArguments()));
        if (deferred != null) {
            return deferred;
        }
        @Nullable
        String token =
                token(declaration, target, invocation.getArguments(), caller.getIfAvailable(() -> CallerContext.NONE));
        TokenConsumption consumption = tokens.getObject().consume(declaration.purpose(), token);
        consumption.orElseThrow();
        if (declaration.consumptionParameter() >= 0) {
            invocation.getArguments()[declaration.consumptionParameter()] = consumption;
        }
        if (declaration.onFailure() != SingleUse.OnFailure.RELEASE) {
            return invocation.proceed();
        }
        try {
            return invocation.proceed();
        } catch (Throwable failure) {
            release(declaration, token, failure);
            throw failure;
        }
    }

    /**
     * The token step of a reactive method: consumed without blocking; given back when the method fails or is cancelled
     * and the declaration asks for it, and always when the subscriber left before the method ran (the use was never
     * made).
     */
    private final class Redemption implements DeferredInvocation.Step<TokenConsumption> {

        private final SingleUseMethods.SingleUseMethod declaration;
        private final @Nullable Object target;
        private final Object[] arguments;
        private volatile @Nullable String token;

        Redemption(SingleUseMethods.SingleUseMethod declaration, @Nullable Object target, Object[] arguments) {
            this.declaration = declaration;
            this.target = target;
            this.arguments = arguments;
        }

        @Override
        public CompletionStage<TokenConsumption> start(CallerContext context) {
            token = token(declaration, target, arguments, context);
            return tokens.getObject()
                    .consumeAsync(declaration.purpose(), token)
                    .thenApply(TokenConsumption::orElseThrow);
        }

        @Override
        public void prepare(TokenConsumption consumption, Object[] args) {
            if (declaration.consumptionParameter() >= 0) {
                args[declaration.consumptionParameter()] = consumption;
            }
        }

        @Override
        public CompletionStage<?> finish(TokenConsumption consumption, DeferredInvocation.End end) {
            boolean giveBack = end == DeferredInvocation.End.NOT_STARTED
                    || (end != DeferredInvocation.End.COMPLETED
                            && declaration.onFailure() == SingleUse.OnFailure.RELEASE);
            if (!giveBack) {
                return CompletableFuture.completedFuture(null);
            }
            return tokens.getObject().releaseAsync(declaration.purpose(), token).exceptionally(error -> {
                log.warn("Could not give back a use of a '{}' token: {}", declaration.purpose(), error.toString());
                return false;
            });
        }
    }

    private @Nullable String token(
            SingleUseMethods.SingleUseMethod declaration,
            @Nullable Object target,
            Object[] args,
            CallerContext context) {
        Object value;
        try {
            value = declaration.token().getValue(declaration.expressions().context(target, args, context));
        } catch (EvaluationException e) {
            throw new SingleUseTokenException(TokenConsumption.Status.MISSING, declaration.purpose());
        }
        return value == null ? null : value.toString();
    }

    private void release(SingleUseMethods.SingleUseMethod declaration, @Nullable String token, Throwable failure) {
        try {
            tokens.getObject().release(declaration.purpose(), token);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
