package io.github.ratelimit.spring.aop;

import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

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

    /** The method as declared on the target's class, where the annotations were found. */
    static Method targetMethod(MethodInvocation invocation) {
        Object target = invocation.getThis();
        Method method = invocation.getMethod();
        return target == null ? method : AopUtils.getMostSpecificMethod(method, AopUtils.getTargetClass(target));
    }
}
