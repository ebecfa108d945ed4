package io.github.ratelimit.spring.aop;

import io.github.ratelimit.spring.internal.MethodDeclarations;
import io.github.ratelimit.spring.internal.MethodLimits;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/** The declarations the advisors compiled, read for documentation; an advisor that is absent declares nothing. */
public final class AdvisorDeclarations implements MethodDeclarations {

    private final ObjectProvider<RateLimitAdvisor> rateLimits;
    private final ObjectProvider<ConcurrencyLimitedAdvisor> concurrencyLimits;
    private final ObjectProvider<SingleUseAdvisor> tokens;
    private final ObjectProvider<LockedAdvisor> locks;

    public AdvisorDeclarations(
            ObjectProvider<RateLimitAdvisor> rateLimits,
            ObjectProvider<ConcurrencyLimitedAdvisor> concurrencyLimits,
            ObjectProvider<SingleUseAdvisor> tokens,
            ObjectProvider<LockedAdvisor> locks) {
        this.rateLimits = rateLimits;
        this.concurrencyLimits = concurrencyLimits;
        this.tokens = tokens;
        this.locks = locks;
    }

    @Override
    public @Nullable MethodLimits rateLimits(Method method) {
        RateLimitAdvisor advisor = rateLimits.getIfAvailable();
        return advisor == null ? null : advisor.declaration(method);
    }

    @Override
    public @Nullable ConcurrencyLimit concurrencyLimit(Method method) {
        ConcurrencyLimitedAdvisor advisor = concurrencyLimits.getIfAvailable();
        ConcurrencyLimitedAdvisor.Declaration declaration = advisor == null ? null : advisor.declaration(method);
        return declaration == null
                ? null
                : new ConcurrencyLimit(
                        declaration.name(), declaration.max(), declaration.key().text());
    }

    @Override
    public boolean takesToken(Method method) {
        SingleUseAdvisor advisor = tokens.getIfAvailable();
        return advisor != null && advisor.declaration(method) != null;
    }

    @Override
    public boolean locks(Method method) {
        LockedAdvisor advisor = locks.getIfAvailable();
        return advisor != null && advisor.declaration(method) != null;
    }

    @Override
    public Set<String> concurrencyLimitNames() {
        ConcurrencyLimitedAdvisor advisor = concurrencyLimits.getIfAvailable();
        return advisor == null ? Set.of() : advisor.names();
    }

    @Override
    public Map<String, AdaptiveLimit> adaptiveLimits() {
        ConcurrencyLimitedAdvisor advisor = concurrencyLimits.getIfAvailable();
        return advisor == null ? Map.of() : advisor.adaptiveLimits();
    }
}
