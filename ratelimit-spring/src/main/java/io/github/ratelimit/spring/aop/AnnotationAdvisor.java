package io.github.ratelimit.spring.aop;

import io.github.ratelimit.spring.definition.InvalidDefinitionException;
import io.github.ratelimit.spring.internal.MethodExpressions;
import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.ObjectProvider;

/** An advisor for the methods that carry one annotation, checked at startup. */
abstract class AnnotationAdvisor extends AbstractPointcutAdvisor implements ValidatingAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient Advice advice;
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return declares(AopUtils.getMostSpecificMethod(method, targetClass));
        }
    };

    AnnotationAdvisor(Advice advice, int order) {
        this.advice = advice;
        setOrder(order);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }

    /**
     * Fails the start, naming the method, when no bean serves its annotation: a store that cannot (a custom
     * {@code RateLimiter} alone), rather than an error on every call.
     */
    static void requireStore(ObjectProvider<?> store, String type, String annotation, Method method) {
        if (store.getIfAvailable() == null) {
            throw new InvalidDefinitionException(
                    annotation,
                    MethodExpressions.describe(method),
                    "no " + type + " bean serves it: ratelimit.store=redis provides one with Redis (the"
                            + " ratelimit-redis module), ratelimit.store=memory one in this instance's memory");
        }
    }

    /** The method as declared on the target's class, where the annotations were found. */
    static Method targetMethod(MethodInvocation invocation) {
        Object target = invocation.getThis();
        Method method = invocation.getMethod();
        return target == null ? method : AopUtils.getMostSpecificMethod(method, AopUtils.getTargetClass(target));
    }
}
