package io.github.ratelimit.aop;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.LockHandle;
import io.github.ratelimit.core.LockManager;
import java.util.concurrent.CompletionStage;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Runs a {@code @Locked} method under its lock: takes it (waiting if asked), hands it to a {@link LockHandle}
 * parameter, and releases it when the method returns, throws, or (for a {@code CompletionStage}) completes.
 */
final class LockedInterceptor implements MethodInterceptor {

    private final LockedMethods methods;
    private final ObjectProvider<LockManager> locks;
    private final ObjectProvider<CallerContext> caller;

    LockedInterceptor(LockedMethods methods, ObjectProvider<LockManager> locks, ObjectProvider<CallerContext> caller) {
        this.methods = methods;
        this.locks = locks;
        this.caller = caller;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        LockHandle lock;
        LockedMethods.LockedMethod declaration;
        try {
            declaration = methods.get(AnnotationAdvisor.targetMethod(invocation));
            lock = locks.getObject().tryAcquire(lockKey(declaration, invocation), declaration.options());
        } catch (RuntimeException e) {
            return AnnotationAdvisor.refuse(invocation, e);
        }
        if (declaration.handleParameter() >= 0) {
            invocation.getArguments()[declaration.handleParameter()] = lock;
        }
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            lock.release();
            throw failure;
        }
        if (result instanceof CompletionStage<?> stage) {
            return stage.whenComplete((value, failure) -> lock.release());
        }
        lock.release();
        return result;
    }

    /** The lock's key: its name and the client identifier of its key expression. */
    private String lockKey(LockedMethods.LockedMethod declaration, MethodInvocation invocation) {
        MethodExpressions expressions = declaration.expressions();
        return declaration.name()
                + '\u0000'
                + declaration
                        .key()
                        .identifier(
                                expressions.context(
                                        invocation.getThis(),
                                        invocation.getArguments(),
                                        caller.getIfAvailable(() -> CallerContext.NONE)),
                                expressions.source());
    }
}
