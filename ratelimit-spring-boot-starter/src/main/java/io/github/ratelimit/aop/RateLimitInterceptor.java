package io.github.ratelimit.aop;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.ShadowRejections;
import java.lang.reflect.Method;
import java.util.List;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.beans.factory.ObjectProvider;

/** Resolves the keys of a {@code @RateLimited} call, asks the limiter once, and proceeds or refuses. */
final class RateLimitInterceptor implements MethodInterceptor {

    private final RateLimitedMethods methods;
    private final ObjectProvider<RateLimiter> limiter;
    private final ObjectProvider<CallerContext> caller;
    private final ObjectProvider<RateLimitSettings> settingsProvider;
    private volatile RateLimitSettings settings;
    private final ShadowRejections shadowRejections = new ShadowRejections();

    RateLimitInterceptor(
            RateLimitedMethods methods,
            ObjectProvider<RateLimiter> limiter,
            ObjectProvider<CallerContext> caller,
            ObjectProvider<RateLimitSettings> settings) {
        this.methods = methods;
        this.limiter = limiter;
        this.caller = caller;
        this.settingsProvider = settings;
    }

    private RateLimitSettings settings() {
        RateLimitSettings resolved = settings;
        if (resolved == null) {
            resolved = settingsProvider.getIfAvailable(RateLimitSettings::defaults);
            settings = resolved;
        }
        return resolved;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = AnnotationAdvisor.targetMethod(invocation);
        CallerContext context = caller.getIfAvailable(() -> CallerContext.NONE);
        RateLimitSettings settings = settings();
        MethodLimits limits;
        List<LimitRequest> requests;
        try {
            limits = methods.get(method);
            requests = limits.requests(target, invocation.getArguments(), context, settings.allShadow());
        } catch (RuntimeException e) {
            return AnnotationAdvisor.refuse(invocation, e);
        }
        Decision decision;
        try {
            decision = limiter.getObject().tryAcquire(requests);
        } catch (RedisUnavailableException e) {
            if (limits.failClosed() || settings.allFailClosed()) {
                settings.fallbacks().failedClosed(limits.expressions().source(), e);
                return AnnotationAdvisor.refuse(invocation, e);
            }
            settings.fallbacks().failedOpen(limits.expressions().source(), e);
            return invocation.proceed();
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
