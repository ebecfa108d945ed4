package io.github.ratelimit.aop;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.internal.RateLimitDecisions;
import java.lang.reflect.Method;
import java.util.List;
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
        CallerContext context = caller.getIfAvailable(() -> CallerContext.NONE);
        RateLimitDecisions decisions = decisions();
        MethodLimits limits;
        List<LimitRequest> requests;
        try {
            limits = methods.get(method);
            requests = limits.requests(invocation.getThis(), invocation.getArguments(), context, decisions);
        } catch (RuntimeException e) {
            return AnnotationAdvisor.refuse(invocation, e);
        }
        RateLimitDecisions.Outcome outcome =
                decisions.decide(limits.expressions().source(), requests, limits.failClosed());
        if (outcome instanceof RateLimitDecisions.Refused refused) {
            return AnnotationAdvisor.refuse(invocation, new RateLimitExceededException(refused.decision()));
        }
        if (outcome instanceof RateLimitDecisions.RefusedClosed closed) {
            return AnnotationAdvisor.refuse(invocation, closed.cause());
        }
        if (outcome instanceof RateLimitDecisions.Admitted admitted) {
            context.allowed(admitted.decision());
        }
        return invocation.proceed();
    }
}
