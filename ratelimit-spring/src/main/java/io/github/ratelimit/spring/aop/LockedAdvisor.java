package io.github.ratelimit.spring.aop;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.internal.AnnotatedMethods;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

/**
 * Applies {@code @Locked} to Spring beans. Runs after {@code @RateLimited} and {@code @SingleUse}, so that a
 * refused call never waits for a lock, and before transactions, so a transaction commits while the lock is
 * still held.
 */
public final class LockedAdvisor extends AnnotationAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient LockedMethods methods;
    private final transient ObjectProvider<LockManager> locks;

    /**
     * @param locks takes the locks; looked up on first use
     * @param caller describes the caller of the current call; {@link CallerContext#NONE} when absent
     * @param keys the kinds of key annotations may name; the built-in ones when absent
     */
    public LockedAdvisor(
            ObjectProvider<LockManager> locks,
            ObjectProvider<CallerContext> caller,
            ObjectProvider<KeyResolvers> keys) {
        this(new LockedMethods(() -> keys.getIfAvailable(() -> KeyResolvers.BUILT_IN)), locks, caller);
    }

    private LockedAdvisor(
            LockedMethods methods, ObjectProvider<LockManager> locks, ObjectProvider<CallerContext> caller) {
        super(new LockedInterceptor(methods, locks, caller), Ordered.HIGHEST_PRECEDENCE + 300);
        this.methods = methods;
        this.locks = locks;
    }

    @Override
    public String annotation() {
        return "Locked";
    }

    @Override
    public boolean declares(Method method) {
        return AnnotatedMethods.isLocked(method);
    }

    @Override
    public void validate(Method method) {
        requireStore(locks, "LockManager", "Locked", method);
        methods.get(method);
    }

    /** The method's compiled lock, or null when it is not locked. */
    LockedMethods.@Nullable LockedMethod declaration(Method method) {
        return declares(method) ? methods.get(method) : null;
    }
}
