package io.github.ratelimit.aop;

import io.github.ratelimit.core.DeclaredLimit;
import io.github.ratelimit.core.DeclaredLimits;
import io.github.ratelimit.core.RateLimiter;
import java.lang.reflect.Method;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

/**
 * Applies {@code @RateLimited} to Spring beans. Runs before transactions and other advice by default, so a
 * rejected call opens nothing.
 */
public final class RateLimitAdvisor extends AnnotationAdvisor implements DeclaredLimits {

    private static final long serialVersionUID = 1L;

    private final transient RateLimitedMethods methods;

    /**
     * @param limiter decides the calls; looked up on first use
     * @param caller describes the caller of the current call; {@link CallerContext#NONE} when absent
     * @param settings shadow and failure modes; {@link RateLimitSettings#defaults()} when absent
     */
    public RateLimitAdvisor(
            ObjectProvider<RateLimiter> limiter,
            ObjectProvider<CallerContext> caller,
            ObjectProvider<RateLimitSettings> settings) {
        this(new RateLimitedMethods(), limiter, caller, settings);
    }

    private RateLimitAdvisor(
            RateLimitedMethods methods,
            ObjectProvider<RateLimiter> limiter,
            ObjectProvider<CallerContext> caller,
            ObjectProvider<RateLimitSettings> settings) {
        super(new RateLimitInterceptor(methods, limiter, caller, settings), Ordered.HIGHEST_PRECEDENCE + 100);
        this.methods = methods;
    }

    /** The limits of every annotated method checked so far: after startup, all of them. */
    @Override
    public List<DeclaredLimit> declaredLimits() {
        return methods.declared();
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
