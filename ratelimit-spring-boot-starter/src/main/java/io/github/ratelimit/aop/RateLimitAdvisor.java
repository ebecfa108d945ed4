package io.github.ratelimit.aop;

import io.github.ratelimit.core.RateLimiter;
import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

/**
 * Applies {@code @RateLimited} to Spring beans. Runs before transactions and other advice by default, so a
 * rejected call opens nothing.
 */
public final class RateLimitAdvisor extends AbstractPointcutAdvisor implements ValidatingAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient RateLimitedMethods methods = new RateLimitedMethods();
    private final transient RateLimitInterceptor interceptor;
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return RateLimitedMethods.isRateLimited(AopUtils.getMostSpecificMethod(method, targetClass));
        }
    };

    /**
     * @param limiter decides the calls; looked up on first use
     * @param caller describes the caller of the current call; {@link CallerContext#NONE} when absent
     */
    public RateLimitAdvisor(ObjectProvider<RateLimiter> limiter, ObjectProvider<CallerContext> caller) {
        this.interceptor = new RateLimitInterceptor(methods, limiter, caller);
        setOrder(Ordered.HIGHEST_PRECEDENCE + 100);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    @Override
    public boolean declares(Method method) {
        return RateLimitedMethods.isRateLimited(method);
    }

    @Override
    public void validate(Method method) {
        methods.get(method);
    }
}
