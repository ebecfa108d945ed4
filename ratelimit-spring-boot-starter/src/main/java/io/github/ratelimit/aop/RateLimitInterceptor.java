package io.github.ratelimit.aop;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.internal.RateLimitDecisions;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.beans.factory.ObjectProvider;

/** Resolves the keys of a {@code @RateLimited} call, has it decided once, and proceeds or refuses. */
final class RateLimitInterceptor implements MethodInterceptor {

    private final RateLimitedMethods methods;
    private final Supplier<RateLimitDecisions> decisionsProvider;
    private final ObjectProvider<CallerContext> caller;
    private volatile RateLimitDecisions decisions;

    RateLimitInterceptor(
            RateLimitedMethods methods, Supplier<RateLimitDecisions> decisions, ObjectProvider<CallerContext> caller) {
        this.methods = methods;
        this.decisionsProvider = decisions;
        this.caller = caller;
    }

    private RateLimitDecisions decisions() {
        RateLimitDecisions resolved = decisions;
        if (resolved == null) {
            resolved = decisionsProvider.get();
            decisions = resolved;
        }
        return resolved;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = AnnotationAdvisor.targetMethod(invocation);
        DeferredInvocation.Shape shape = DeferredInvocation.Shape.of(invocation.getMethod());
        if (shape != DeferredInvocation.Shape.PLAIN) {
            return DeferredInvocation.invoke(
                    invocation, shape, this::callerOutsideReactor, context -> decideAsync(method, invocation, context));
        }
        DeferredInvocation.checkMayBlock(method, "@RateLimited");
        CallerContext context = callerOutsideReactor();
        RateLimitDecisions decisions = decisions();
        MethodLimits limits = methods.get(method);
        List<LimitRequest> requests =
                limits.requests(invocation.getThis(), invocation.getArguments(), context, decisions);
        admit(decisions.decide(limits.expressions().source(), requests, limits.failClosed()), context);
        return invocation.proceed();
    }

    private CallerContext callerOutsideReactor() {
        return caller.getIfAvailable(() -> CallerContext.NONE);
    }

    private CompletionStage<Object> decideAsync(Method method, MethodInvocation invocation, CallerContext context) {
        RateLimitDecisions decisions = decisions();
        MethodLimits limits = methods.get(method);
        List<LimitRequest> requests =
                limits.requests(invocation.getThis(), invocation.getArguments(), context, decisions);
        return decisions
                .decideAsync(limits.expressions().source(), requests, limits.failClosed())
                .thenApply(outcome -> {
                    admit(outcome, context);
                    return outcome;
                });
    }

    /** Throws for a refusal; reports an admitted decision to the caller (the RateLimit headers). */
    private static void admit(RateLimitDecisions.Outcome outcome, CallerContext context) {
        if (outcome instanceof RateLimitDecisions.Refused refused) {
            throw new RateLimitExceededException(refused.decision());
        }
        if (outcome instanceof RateLimitDecisions.RefusedClosed closed) {
            throw closed.cause();
        }
        if (outcome instanceof RateLimitDecisions.Admitted admitted) {
            context.allowed(admitted.decision());
        }
    }
}
