package io.github.ratelimit.autoconfigure.aop;

import io.github.ratelimit.autoconfigure.internal.DeferredInvocation;
import io.github.ratelimit.autoconfigure.internal.MethodLimits;
import io.github.ratelimit.autoconfigure.internal.RefusedByLimits;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.decision.RateLimitDecisions;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.beans.factory.ObjectProvider;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Resolves the keys of a {@code @RateLimited} call, has it decided once, and proceeds or refuses. */
final class RateLimitInterceptor implements MethodInterceptor {

    private final RateLimitedMethods methods;
    private final Supplier<RateLimitDecisions> decisionsProvider;
    private final ObjectProvider<CallerContext> caller;
    private volatile RateLimitDecisions decisions;

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
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = AnnotationAdvisor.targetMethod(invocation);
        MethodLimits limits = methods.get(method);
        Object deferred = DeferredInvocation.deferredOrNull(
                invocation, method, "@RateLimited", this::callerOutsideReactor, () -> new Decide(limits, invocation));
        if (deferred != null) {
            return limits.fallback() == null
                    ? deferred
                    : withFallback(
                            deferred,
                            DeferredInvocation.Shape.of(invocation.getMethod()),
                            invocation.getMethod(),
                            limits,
                            invocation.getThis(),
                            invocation.getArguments());
        }
        CallerContext context = callerOutsideReactor();
        RateLimitDecisions decisions = decisions();
        RateLimitDecisions.Outcome outcome = decisions.decide(
                context, caller -> limits.call(invocation.getThis(), invocation.getArguments(), caller, decisions));
        try {
            admit(outcome, context, limits);
        } catch (RefusedByLimits refused) {
            if (limits.fallback() == null) {
                throw refused;
            }
            return limits.fallback().invoke(invocation.getThis(), invocation.getArguments(), refused);
        }
        List<LimitRequest> requests = requestsOf(outcome);
        if (requests.isEmpty() || (!limits.countsFailures() && !limits.charges())) {
            return invocation.proceed();
        }
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            decisions.countFailures(limits.failures(outcome.call()));
            decisions.charge(
                    limits.expressions().source(),
                    limits.charged(requests, invocation.getThis(), invocation.getArguments(), context, null, true));
            throw failure;
        }
        if (HttpFailures.isFailure(result)) {
            decisions.countFailures(limits.failures(outcome.call()));
        }
        decisions.charge(
                limits.expressions().source(),
                limits.charged(requests, invocation.getThis(), invocation.getArguments(), context, result, false));
        return result;
    }

    /** What the call asked, if a limit applied: empty for an exempt caller, which is neither counted nor charged. */
    private static List<LimitRequest> requestsOf(RateLimitDecisions.Outcome outcome) {
        return outcome.call() == null ? List.of() : outcome.call().requests();
    }

    private CallerContext callerOutsideReactor() {
        return caller.getIfAvailable(() -> CallerContext.NONE);
    }

    /** What a reactive call was admitted with (no call for an exempt caller), and the value its result gave. */
    private static final class Admitted {

        final RateLimitDecisions.Call call;
        final CallerContext caller;
        volatile Object value;

        Admitted(RateLimitDecisions.Call call, CallerContext caller) {
            this.call = call;
            this.caller = caller;
        }
    }

    /** The decision step of a reactive method: its resource is what a failure would count and a charge take. */
    private final class Decide implements DeferredInvocation.Step<Admitted> {

        private final MethodLimits limits;
        private final MethodInvocation invocation;

        Decide(MethodLimits limits, MethodInvocation invocation) {
            this.limits = limits;
            this.invocation = invocation;
        }

        @Override
        public CompletionStage<Admitted> start(CallerContext context) {
            RateLimitDecisions decisions = decisions();
            return decisions
                    .decideAsync(
                            context,
                            caller -> limits.call(invocation.getThis(), invocation.getArguments(), caller, decisions))
                    .thenApply(outcome -> {
                        admit(outcome, context, limits);
                        return new Admitted(outcome.call(), context);
                    });
        }

        @Override
        public void value(Admitted admitted, Object value) {
            admitted.value = value;
        }

        @Override
        public boolean failure(Object value) {
            return HttpFailures.isFailure(value);
        }

        @Override
        public CompletionStage<?> finish(Admitted admitted, DeferredInvocation.End end) {
            boolean failed = end == DeferredInvocation.End.FAILED;
            if (admitted.call == null) {
                return CompletableFuture.completedFuture(null); // exempt: neither counted nor charged
            }
            CompletionStage<?> counted = failed
                    ? decisions().countFailuresAsync(limits.failures(admitted.call))
                    : CompletableFuture.completedFuture(null);
            if (!limits.charges() || (!failed && end != DeferredInvocation.End.COMPLETED)) {
                return counted;
            }
            CompletionStage<Void> charged = decisions()
                    .chargeAsync(
                            limits.expressions().source(),
                            limits.charged(
                                    admitted.call.requests(),
                                    invocation.getThis(),
                                    invocation.getArguments(),
                                    admitted.caller,
                                    admitted.value,
                                    failed));
            return counted.thenCombine(charged, (a, b) -> null);
        }
    }

    /** Answers this method's own refusals with its fallback, in the shape of its return type. */
    @SuppressWarnings("unchecked")
    private static Object withFallback(
            Object deferred,
            DeferredInvocation.Shape shape,
            java.lang.reflect.Method method,
            MethodLimits limits,
            Object target,
            Object[] args) {
        return switch (shape) {
            case MONO ->
                ((Mono<Object>) deferred)
                        .onErrorResume(
                                e -> e instanceof RefusedByLimits refused && refused.refusedBy(limits),
                                e -> Mono.defer(() -> Mono.from((org.reactivestreams.Publisher<Object>)
                                        callFallback(limits, target, args, e))));
            case FLUX ->
                ((Flux<Object>) deferred)
                        .onErrorResume(
                                e -> e instanceof RefusedByLimits refused && refused.refusedBy(limits),
                                e -> Flux.defer(() -> Flux.from((org.reactivestreams.Publisher<Object>)
                                        callFallback(limits, target, args, e))));
            case STAGE ->
                ((CompletionStage<Object>) deferred).exceptionallyCompose(error -> {
                    Throwable e = Futures.cause(error);
                    if (e instanceof RefusedByLimits refused && refused.refusedBy(limits)) {
                        return (CompletionStage<Object>) callFallback(limits, target, args, e);
                    }
                    return CompletableFuture.failedFuture(e);
                });
            case ADAPTED -> {
                org.springframework.core.ReactiveAdapter flow = DeferredInvocation.Shape.adapter(method);
                yield flow.fromPublisher(Flux.from((org.reactivestreams.Publisher<Object>) flow.toPublisher(deferred))
                        .onErrorResume(
                                e -> e instanceof RefusedByLimits refused && refused.refusedBy(limits),
                                e -> Flux.defer(() -> Flux.from((org.reactivestreams.Publisher<Object>)
                                        flow.toPublisher(callFallback(limits, target, args, e))))));
            }
            case PLAIN -> deferred;
        };
    }

    private static Object callFallback(MethodLimits limits, Object target, Object[] args, Throwable refusal) {
        try {
            return limits.fallback().invoke(target, args, (RefusedByLimits) refusal);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new CompletionException(e);
        }
    }

    /** Throws for a refusal; reports an admitted decision to the caller (the RateLimit headers). */
    private static void admit(RateLimitDecisions.Outcome outcome, CallerContext context, MethodLimits limits) {
        if (outcome instanceof RateLimitDecisions.Refused refused) {
            throw new RefusedByLimits(refused.decision(), limits); // this method's own refusal, for its fallback
        }
        RuntimeException refusal = outcome.refusal();
        if (refusal != null) {
            throw refusal;
        }
        if (outcome.admitted() != null) {
            context.allowed(outcome.admitted());
        }
    }
}
