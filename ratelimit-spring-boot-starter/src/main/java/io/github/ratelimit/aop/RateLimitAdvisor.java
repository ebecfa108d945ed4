package io.github.ratelimit.aop;

import io.github.ratelimit.core.RateLimiter;
import java.lang.reflect.Method;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

/**
 * Applies {@code @RateLimited} to Spring beans. Runs before transactions and other advice by default, so a
 * rejected call opens nothing.
 */
public final class RateLimitAdvisor extends AnnotationAdvisor {

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

    @Override
    public boolean declares(Method method) {
        return RateLimitedMethods.isRateLimited(method);
    }

    @Override
    public void validate(Method method) {
        methods.get(method);
    }
}
