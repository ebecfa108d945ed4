package io.github.ratelimit.spring.aop;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.call.CallRunner;
import io.github.ratelimit.spring.internal.HttpFailures;
import io.github.ratelimit.spring.internal.MethodLimits;
import io.github.ratelimit.spring.internal.RefusedByLimits;
import io.github.ratelimit.spring.internal.invocation.ReturnShape;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/** Resolves the keys of a {@code @RateLimited} call, has it decided once, and proceeds or refuses. */
final class RateLimitInterceptor implements MethodInterceptor {

    private final RateLimitedMethods methods;
    private final Supplier<RateLimitDecisions> decisionsProvider;
    private final ObjectProvider<CallerContext> caller;
    private volatile @Nullable RateLimitDecisions decisions;

    RateLimitInterceptor(
            RateLimitedMethods methods, Supplier<RateLimitDecisions> decisions, ObjectProvider<CallerContext> caller) {
        this.methods = methods;
        this.decisionsProvider = decisions;
        this.caller = caller;
    }

    private RateLimitDecisions decisions() {
        RateLimitDecisions resolved = decisions;
        if (resolved == null) {
            resolved = decisionsProvider.get();
            decisions = resolved;
        }
        return resolved;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = AnnotationAdvisor.targetMethod(invocation);
        MethodLimits limits = methods.get(method);
        Function<CallerContext, CallRunner.Start> start = context -> start(limits, invocation, context);
        Object deferred = CallRunner.deferred(invocation, method, "@RateLimited", this::callerOutsideReactor, start);
        if (deferred != null) {
            return limits.fallback() == null
                    ? deferred
                    : ReturnShape.of(invocation.getMethod())
                            .recover(
                                    deferred,
                                    e -> e instanceof RefusedByLimits refused && refused.refusedBy(limits),
                                    e -> callFallback(limits, invocation.getThis(), invocation.getArguments(), e));
        }
        return CallRunner.run(
                start.apply(callerOutsideReactor()),
                refusal -> {
                    var fallback = limits.fallback();
                    if (refusal instanceof RefusedByLimits refused && fallback != null) {
                        return fallback.invoke(invocation.getThis(), invocation.getArguments(), refused);
                    }
                    throw refusal;
                },
                end -> invocation.proceed());
    }

    /**
     * What a call of this method asks, for a caller: its limits' requests, what follows it, and its own refusals
     * marked as this method's (for its fallback).
     */
    private CallRunner.Start start(MethodLimits limits, MethodInvocation invocation, CallerContext caller) {
        RateLimitDecisions decisions = decisions();
        return new CallRunner.Start(
                decisions,
                caller,
                asked -> limits.call(invocation.getThis(), invocation.getArguments(), asked, decisions),
                after(limits, invocation, caller),
                decided -> decided.outcome() instanceof RateLimitDecisions.Refused refused
                        ? new RefusedByLimits(refused.decision(), limits) // this method's own refusal
                        : decided.refusal());
    }

    /**
     * What follows a call of this method: a failing HTTP answer is a failure, failures take what the limits that count
     * them ask, and the charges are the method's expressions over the result.
     */
    private static RateLimitDecisions.After after(
            MethodLimits limits, MethodInvocation invocation, CallerContext caller) {
        return new RateLimitDecisions.After() {
            @Override
            public boolean failure(@Nullable Object result) {
                return HttpFailures.isFailedResponse(result);
            }

            @Override
            public RateLimitDecisions.Call failures(RateLimitDecisions.Call admitted) {
                return limits.failures(admitted);
            }

            @Override
            public boolean charges() {
                return limits.charges();
            }

            @Override
            public List<RateLimitDecisions.Charge> charged(
                    List<LimitRequest> requests, @Nullable Object result, boolean failed) {
                return limits.charged(
                        requests, invocation.getThis(), invocation.getArguments(), caller, result, failed);
            }
        };
    }

    private CallerContext callerOutsideReactor() {
        return caller.getIfAvailable(() -> CallerContext.NONE);
    }

    private static @Nullable Object callFallback(
            MethodLimits limits, @Nullable Object target, Object[] args, Throwable refusal) {
        try {
            return java.util.Objects.requireNonNull(limits.fallback()).invoke(target, args, (RefusedByLimits) refusal);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new CompletionException(e);
        }
    }
}
