package io.github.ratelimit.spring.aop;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.decision.DecidedCall;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.internal.DeferredInvocation;
import io.github.ratelimit.spring.internal.MethodLimits;
import io.github.ratelimit.spring.internal.RefusedByLimits;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

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
        DecidedCall decided = decisions.begin(
                context,
                caller -> limits.call(invocation.getThis(), invocation.getArguments(), caller, decisions),
                after(limits, invocation, context));
        try {
            admit(decided, context, limits);
        } catch (RefusedByLimits refused) {
            if (limits.fallback() == null) {
                throw refused;
            }
            return limits.fallback().invoke(invocation.getThis(), invocation.getArguments(), refused);
        }
        if (!decided.awaitsEnd()) {
            return invocation.proceed();
        }
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            decided.failed(failure);
            throw failure;
        }
        decided.completed(result);
        return result;
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
                return HttpFailures.isFailure(result);
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

    /** The decision step of a reactive method: what it gives is the decided call, whose end it tells. */
    private final class Decide implements DeferredInvocation.Step<Decide.Running> {

        private final MethodLimits limits;
        private final MethodInvocation invocation;

        Decide(MethodLimits limits, MethodInvocation invocation) {
            this.limits = limits;
            this.invocation = invocation;
        }

        /** A decided call and the value its result gave. */
        static final class Running {

            final DecidedCall decided;
            volatile @Nullable Object value;

            Running(DecidedCall decided) {
                this.decided = decided;
            }
        }

        @Override
        public CompletionStage<Running> start(CallerContext context) {
            RateLimitDecisions decisions = decisions();
            return decisions
                    .beginAsync(
                            context,
                            caller -> limits.call(invocation.getThis(), invocation.getArguments(), caller, decisions),
                            after(limits, invocation, context))
                    .thenApply(decided -> {
                        admit(decided, context, limits);
                        return new Running(decided);
                    });
        }

        @Override
        public void value(Running running, Object value) {
            running.value = value;
        }

        @Override
        public boolean failure(Object value) {
            return HttpFailures.isFailure(value);
        }

        @Override
        public CompletionStage<?> finish(Running running, DeferredInvocation.End end) {
            return switch (end) {
                case COMPLETED -> running.decided.completedAsync(running.value);
                // a failing value is a completed call whose answer failed; anything else failed without one
                case FAILED ->
                    running.value != null && failure(running.value)
                            ? running.decided.completedAsync(running.value)
                            : running.decided.failedAsync(null);
                case CANCELLED, NOT_STARTED -> CompletableFuture.completedFuture(null);
            };
        }
    }

    /** Answers this method's own refusals with its fallback, in the shape of its return type. */
    @SuppressWarnings("unchecked")
    private static Object withFallback(
            Object deferred,
            DeferredInvocation.Shape shape,
            java.lang.reflect.Method method,
            MethodLimits limits,
            @Nullable Object target,
            Object[] args) {
        return switch (shape) {
            case MONO ->
                ((Mono<Object>) deferred)
                        .onErrorResume(
                                e -> e instanceof RefusedByLimits refused && refused.refusedBy(limits),
                                e -> Mono.defer(() -> Mono.from((org.reactivestreams.Publisher<Object>)
                                        Objects.requireNonNull(callFallback(limits, target, args, e)))));
            case FLUX ->
                ((Flux<Object>) deferred)
                        .onErrorResume(
                                e -> e instanceof RefusedByLimits refused && refused.refusedBy(limits),
                                e -> Flux.defer(() -> Flux.from((org.reactivestreams.Publisher<Object>)
                                        Objects.requireNonNull(callFallback(limits, target, args, e)))));
            case STAGE ->
                ((CompletionStage<Object>) deferred).exceptionallyCompose(error -> {
                    Throwable e = Futures.cause(error);
                    if (e instanceof RefusedByLimits refused && refused.refusedBy(limits)) {
                        return (CompletionStage<Object>) callFallback(limits, target, args, e);
                    }
                    return CompletableFuture.failedFuture(e);
                });
            case ADAPTED -> {
                org.springframework.core.ReactiveAdapter flow =
                        java.util.Objects.requireNonNull(DeferredInvocation.Shape.adapter(method));
                yield flow.fromPublisher(Flux.from((org.reactivestreams.Publisher<Object>) flow.toPublisher(deferred))
                        .onErrorResume(
                                e -> e instanceof RefusedByLimits refused && refused.refusedBy(limits),
                                e -> Flux.defer(() -> Flux.from((org.reactivestreams.Publisher<Object>)
                                        flow.toPublisher(callFallback(limits, target, args, e))))));
            }
            case PLAIN -> deferred;
        };
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

    /** Throws for a refusal; reports an admitted decision to the caller (the RateLimit headers). */
    private static void admit(DecidedCall decided, CallerContext context, MethodLimits limits) {
        if (decided.outcome() instanceof RateLimitDecisions.Refused refused) {
            throw new RefusedByLimits(refused.decision(), limits); // this method's own refusal, for its fallback
        }
        if (decided.refusal() != null) {
            throw decided.refusal();
        }
        decided.reportTo(context);
    }
}
