package io.github.ratelimit.autoconfigure.aop;

import io.github.ratelimit.autoconfigure.internal.DeferredInvocation;
import io.github.ratelimit.autoconfigure.internal.MethodExpressions;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.LockManager;
import io.github.ratelimit.core.LockManager.LockHandle;
import java.lang.reflect.Method;
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
        Method method = AnnotationAdvisor.targetMethod(invocation);
        LockedMethods.LockedMethod declaration = methods.get(method);
        Object deferred = DeferredInvocation.deferredOrNull(
                invocation,
                method,
                "@Locked",
                () -> caller.getIfAvailable(() -> CallerContext.NONE),
                () -> new DeferredInvocation.Step<LockHandle>() {
                    @Override
                    public CompletionStage<LockHandle> start(CallerContext context) {
                        return locks.getObject()
                                .tryAcquireAsync(lockKey(declaration, invocation, context), declaration.options());
                    }

                    @Override
                    public void prepare(LockHandle lock, Object[] arguments) {
                        if (declaration.handleParameter() >= 0) {
                            arguments[declaration.handleParameter()] = lock;
                        }
                    }

                    @Override
                    public CompletionStage<?> finish(LockHandle lock, DeferredInvocation.End end) {
                        return lock.releaseAsync();
                    }
                });
        if (deferred != null) {
            return deferred;
        }
        LockHandle lock = locks.getObject()
                .tryAcquire(
                        lockKey(declaration, invocation, caller.getIfAvailable(() -> CallerContext.NONE)),
                        declaration.options());
        if (declaration.handleParameter() >= 0) {
            invocation.getArguments()[declaration.handleParameter()] = lock;
        }
        try {
            return invocation.proceed();
        } finally {
            lock.release();
        }
    }

    /** The lock's key: its name and the client identifier of its key expression. */
    private static String lockKey(
            LockedMethods.LockedMethod declaration, MethodInvocation invocation, CallerContext context) {
        MethodExpressions expressions = declaration.expressions();
        return LockManager.keyOf(
                declaration.name(),
                declaration
                        .key()
                        .identifier(
                                expressions.context(invocation.getThis(), invocation.getArguments(), context),
                                context,
                                expressions.source()));
    }
}
