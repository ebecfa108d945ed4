package io.github.ratelimit.aop;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.ShadowRejections;
import java.lang.reflect.Method;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.beans.factory.ObjectProvider;

/** Resolves the keys of a {@code @RateLimited} call, asks the limiter once, and proceeds or refuses. */
final class RateLimitInterceptor implements MethodInterceptor {

    private final RateLimitedMethods methods;
    private final ObjectProvider<RateLimiter> limiter;
    private final ObjectProvider<CallerContext> caller;
    private final BooleanSupplier allShadow;
    private final ShadowRejections shadowRejections = new ShadowRejections();

    RateLimitInterceptor(
            RateLimitedMethods methods,
            ObjectProvider<RateLimiter> limiter,
            ObjectProvider<CallerContext> caller,
            BooleanSupplier allShadow) {
        this.methods = methods;
        this.limiter = limiter;
        this.caller = caller;
        this.allShadow = allShadow;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = AnnotationAdvisor.targetMethod(invocation);
        CallerContext context = caller.getIfAvailable(() -> CallerContext.NONE);
        Decision decision;
        try {
            List<LimitRequest> requests =
                    methods.get(method).requests(target, invocation.getArguments(), context, allShadow.getAsBoolean());
            decision = limiter.getObject().tryAcquire(requests);
        } catch (RuntimeException e) {
            return AnnotationAdvisor.refuse(invocation, e);
        }
        shadowRejections.record(decision);
        if (!decision.allowed()) {
            return AnnotationAdvisor.refuse(invocation, new RateLimitExceededException(decision));
        }
        context.allowed(decision);
        return invocation.proceed();
    }
}
