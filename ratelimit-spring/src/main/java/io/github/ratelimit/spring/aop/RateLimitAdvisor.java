package io.github.ratelimit.spring.aop;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.DeclaredLimits.DeclaredLimit;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.internal.AnnotatedMethods;
import io.github.ratelimit.spring.internal.MethodLimits;
import java.lang.reflect.Method;
import java.util.List;
import org.jspecify.annotations.Nullable;
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
     * @param decisions the decision flow; looked up on first use, else one over the {@code limiter}
     * @param limiter decides the calls when there is no decision flow; looked up on first use
     * @param caller describes the caller of the current call; {@link CallerContext#NONE} when absent
     * @param keys the kinds of key annotations may name; the built-in ones when absent
     * @param plans the plan groups {@code plans} attributes name; none when absent
     */
    public RateLimitAdvisor(
            ObjectProvider<RateLimitDecisions> decisions,
            ObjectProvider<RateLimiter> limiter,
            ObjectProvider<CallerContext> caller,
            ObjectProvider<KeyResolvers> keys,
            ObjectProvider<Plans> plans) {
        this(
                new RateLimitedMethods(
                        () -> plans.getIfAvailable(() -> Plans.NONE),
                        () -> keys.getIfAvailable(() -> KeyResolvers.BUILT_IN)),
                decisions,
                limiter,
                caller);
    }

    private RateLimitAdvisor(
            RateLimitedMethods methods,
            ObjectProvider<RateLimitDecisions> decisions,
            ObjectProvider<RateLimiter> limiter,
            ObjectProvider<CallerContext> caller) {
        super(
                new RateLimitInterceptor(
                        methods,
                        () -> decisions.getIfAvailable(() -> RateLimitDecisions.of(limiter.getObject())),
                        caller),
                Ordered.HIGHEST_PRECEDENCE + 100);
        this.methods = methods;
    }

    /** The limits of every annotated method checked so far: after startup, all of them. */
    @Override
    public List<DeclaredLimit> declaredLimits() {
        return methods.declared();
    }

    @Override
    public String annotation() {
        return "RateLimited";
    }

    @Override
    public boolean declares(Method method) {
        return AnnotatedMethods.isRateLimited(method);
    }

    @Override
    public void validate(Method method) {
        methods.get(method);
    }

    /** The method's compiled limits, or null when it is not rate limited. */
    @Nullable
    MethodLimits declaration(Method method) {
        return declares(method) ? methods.get(method) : null;
    }
}
