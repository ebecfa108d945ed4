package io.github.ratelimit.aop;

import io.github.ratelimit.core.SingleUseTokens;
import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

/**
 * Applies {@code @SingleUse} to Spring beans. Runs after {@code @RateLimited} (a call refused by a limit
 * does not burn its token) and before transactions.
 */
public final class SingleUseAdvisor extends AbstractPointcutAdvisor implements ValidatingAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient SingleUseMethods methods = new SingleUseMethods();
    private final transient SingleUseInterceptor interceptor;
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return SingleUseMethods.isSingleUse(AopUtils.getMostSpecificMethod(method, targetClass));
        }
    };

    /**
     * @param tokens consumes the tokens; looked up on first use
     * @param caller describes the caller of the current call; {@link CallerContext#NONE} when absent
     */
    public SingleUseAdvisor(ObjectProvider<SingleUseTokens> tokens, ObjectProvider<CallerContext> caller) {
        this.interceptor = new SingleUseInterceptor(methods, tokens, caller);
        setOrder(Ordered.HIGHEST_PRECEDENCE + 200);
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
        return SingleUseMethods.isSingleUse(method);
    }

    @Override
    public void validate(Method method) {
        methods.get(method);
    }
}
