package io.github.ratelimit.spring.internal.invocation;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.spring.internal.FromRedis;
import java.lang.reflect.Method;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.ReactiveAdapterRegistry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The return-type adapters of the interceptors: how an intercepted method runs after a step that asks Redis (a
 * decision, a token consumption, a lock acquisition) and what ends it. A method returning a plain value waits for the
 * step on the calling thread; one returning {@code Mono}, {@code Flux} or {@code CompletionStage} takes the step
 * without blocking any thread: for a publisher, when it is subscribed (every subscription decides again), with the
 * caller taken from the Reactor context; for a stage, when the method is called. The method itself is called only
 * once the step succeeded, on Reactor's parallel scheduler ({@link FromRedis#SCHEDULER}).
 *
 * <p>Whatever the step holds (a lock, a consumed token) is finished exactly once: when the method's result completes,
 * fails or is cancelled, or, when the subscriber cancels before the method ran, as soon as the step completes.
 */
public final class DeferredInvocation {

    private static final Executor AFTER_REDIS_EXECUTOR = task -> FromRedis.SCHEDULER.schedule(task);

    private DeferredInvocation() {}

    /** What the method's result did, for {@link Step#finish}. */
    public enum End {
        /** Completed normally. */
        COMPLETED,
        /** Failed, or the method threw. */
        FAILED,
        /** The subscriber cancelled while the method's publisher ran. */
        CANCELLED,
        /** The subscriber cancelled before the method was called: the step's effect was never used. */
        NOT_STARTED
    }

    /** One interceptor's step, for one invocation. */
    public interface Step<R> {

        /** Takes the step for the caller; a failed stage refuses the call with its exception. */
        CompletionStage<R> start(CallerContext caller);

        /** Whether a value the method gave is a failure, so that its end is {@link End#FAILED}. */
        default boolean failure(R result, Object value) {
            return false;
        }

        /** Sees each value the method's result gives (a {@code Mono}'s one, a stage's), before its end. */
        default void value(R result, Object value) {}

        /** Hands what the step produced to the method's arguments, before it is called. */
        default void prepare(R result, Object[] arguments) {}

        /**
         * A stage that completes, while the method's result runs, with the error to end it with (its subscription
         * cancelled, its stage completed with the error): a lock lost meanwhile. Null (the default) for none.
         */
        default @Nullable CompletionStage<Throwable> interruption(R result) {
            return null;
        }

        /**
         * Ends what the step holds; called at most once. The result of the method waits for the returned stage when it
         * completes or fails, not when it is cancelled; a failed stage is ignored (log it where it fails).
         */
        default CompletionStage<?> finish(R result, End end) {
            return CompletableFuture.completedFuture(null);
        }
    }

    /**
     * Fails a call that would block a non-blocking thread (an event loop) waiting for Redis: a method with a plain
     * return type on a reactive server must return {@code Mono}, {@code Flux} or {@code CompletionStage} instead.
     */
    private static void checkMayBlock(Method method, String annotation) {
        if (Schedulers.isInNonBlockingThread()) {
            throw new IllegalStateException(annotation + " method "
                    + method.getDeclaringClass().getSimpleName() + "."
                    + method.getName() + " returns " + method.getReturnType().getSimpleName()
                    + " and was called on a non-blocking thread ("
                    + Thread.currentThread().getName()
                    + "), where waiting for Redis would block it; return Mono, Flux or CompletionStage instead"
                    + " (in Kotlin: make it a suspend fun, or return a Flow)");
        }
    }

    /**
     * The one way in for the annotations' interceptors: when the method returns a deferred type (see {@link ReturnShape}),
     * runs it after the step, in that type; otherwise checks that this thread may block, naming the annotation, and
     * gives null, for the interceptor's blocking path.
     *
     * @param declared the method as declared on the target's class, for the message
     * @param step made only for a deferred method
     */
    public static <R> @Nullable Object deferredOrNull(
            MethodInvocation invocation,
            Method declared,
            String annotation,
            Supplier<CallerContext> callerOutsideReactor,
            Supplier<Step<R>> step) {
        ReturnShape shape = ReturnShape.of(invocation.getMethod());
        if (!shape.deferred()) {
            checkMayBlock(declared, annotation);
            return null;
        }
        return shape.defer(invocation, callerOutsideReactor, step.get());
    }

    /** The caller of a subscription: from the Reactor context, else the one outside it, as it is now. */
    static CallerContext caller(reactor.util.context.ContextView context, Supplier<CallerContext> outside) {
        CallerContext caller = context.getOrDefault(CallerContext.class, null);
        return caller != null ? caller : outside.get().snapshot();
    }

    /**
     * One subscription: the step, then the method's publisher, then the step's end, which the result waits for when it
     * completes or fails (so that, for example, a lock is free again when the caller sees the answer).
     */
    static <R, P extends Publisher<Object>> P subscribed(
            MethodInvocation invocation, CallerContext caller, Step<R> step, Function<Publisher<Object>, P> as) {
        CompletableFuture<R> started;
        try {
            started = step.start(caller).toCompletableFuture();
        } catch (RuntimeException e) {
            return as.apply(Mono.error(e));
        }
        Ending<R> ending = new Ending<>(step);
        // the step's effect is kept when the subscriber leaves before it is known, and given back when it is
        Mono<R> resource = Mono.fromFuture(started, true)
                .doOnCancel(() -> started.thenAccept(result -> ending.end(result, End.NOT_STARTED)))
                .publishOn(FromRedis.SCHEDULER);
        return as.apply(Flux.usingWhen(
                resource,
                result -> {
                    if (!ending.run()) {
                        return Flux.empty();
                    }
                    try {
                        return Flux.from(publisher(invocation, step, result)).doOnNext(value -> {
                            step.value(result, value);
                            if (step.failure(result, value)) {
                                ending.failed = true;
                            }
                        });
                    } catch (Throwable e) {
                        return Flux.error(e);
                    }
                },
                result -> ending.end(result, ending.failed ? End.FAILED : End.COMPLETED),
                (result, error) -> ending.end(result, End.FAILED),
                result -> ending.end(result, ending.running() ? End.CANCELLED : End.NOT_STARTED)));
    }

    /** The end of one subscription's step, at most once: 0 waiting, 1 running, 2 ended. */
    private static final class Ending<R> {

        private final Step<R> step;
        private final AtomicInteger state = new AtomicInteger();
        private volatile boolean failed;

        Ending(Step<R> step) {
            this.step = step;
        }

        boolean run() {
            return state.compareAndSet(0, 1);
        }

        boolean running() {
            return state.get() == 1;
        }

        Mono<Void> end(R result, End end) {
            if (state.getAndSet(2) == 2) {
                return Mono.empty();
            }
            return FromRedis.mono(step.finish(result, end))
                    .onErrorResume(error -> Mono.empty())
                    .then();
        }
    }

    @SuppressWarnings("unchecked")
    private static <R> Publisher<Object> publisher(MethodInvocation invocation, Step<R> step, R result)
            throws Throwable {
        MethodInvocation call = fresh(invocation);
        step.prepare(result, call.getArguments());
        Object returned = call.proceed();
        Publisher<Object> published;
        if (returned == null) {
            published = Mono.empty();
        } else if (returned instanceof Publisher<?>) {
            published = (Publisher<Object>) returned;
        } else {
            // a type the adapter registry knows (a Kotlin Flow or Deferred, ...)
            published = (Publisher<Object>) Objects.requireNonNull(
                            ReactiveAdapterRegistry.getSharedInstance().getAdapter(returned.getClass()))
                    .toPublisher(returned);
        }
        CompletionStage<Throwable> interruption = step.interruption(result);
        if (interruption == null) {
            return published;
        }
        CompletableFuture<Throwable> interrupted = interruption.toCompletableFuture();
        return Flux.from(published)
                .takeUntilOther(Mono.fromFuture(interrupted, true))
                .concatWith(Mono.defer(() -> interrupted.isDone() ? Mono.error(interrupted.join()) : Mono.empty()));
    }

    static <R> CompletionStage<Object> stage(MethodInvocation invocation, CallerContext caller, Step<R> step) {
        CompletionStage<R> started;
        try {
            started = step.start(caller);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return started.thenComposeAsync(
                        result -> {
                            CompletionStage<Object> returned;
                            try {
                                MethodInvocation call = fresh(invocation);
                                step.prepare(result, call.getArguments());
                                @SuppressWarnings("unchecked")
                                CompletionStage<Object> proceeded = (CompletionStage<Object>) call.proceed();
                                returned = proceeded == null ? CompletableFuture.completedFuture(null) : proceeded;
                                CompletionStage<Throwable> interruption = step.interruption(result);
                                if (interruption != null) {
                                    CompletableFuture<Object> interruptible = new CompletableFuture<>();
                                    returned.whenComplete((value, error) -> {
                                        if (error == null) {
                                            interruptible.complete(value);
                                        } else {
                                            interruptible.completeExceptionally(error);
                                        }
                                    });
                                    CompletionStage<Object> original = returned;
                                    interruption.thenAccept(error -> {
                                        if (interruptible.completeExceptionally(error)) {
                                            original.toCompletableFuture().cancel(true);
                                        }
                                    });
                                    returned = interruptible;
                                }
                            } catch (Throwable e) {
                                returned = CompletableFuture.failedFuture(e);
                            }
                            return returned.handle((value, error) -> {
                                        if (error == null) {
                                            step.value(result, value);
                                        }
                                        return step.finish(
                                                        result,
                                                        error == null && !step.failure(result, value)
                                                                ? End.COMPLETED
                                                                : End.FAILED)
                                                .handle((ended, endError) -> {
                                                    if (error != null) {
                                                        throw error instanceof CompletionException completion
                                                                ? completion
                                                                : new CompletionException(error);
                                                    }
                                                    return value;
                                                });
                                    })
                                    .thenCompose(Function.identity());
                        },
                        AFTER_REDIS_EXECUTOR)
                // the caller's own stages run after the step's end, which Redis may have completed
                .thenApplyAsync(Function.identity(), AFTER_REDIS_EXECUTOR);
    }

    /** An invocation that can be proceeded now, once per subscription, whatever happened to the original. */
    private static MethodInvocation fresh(MethodInvocation invocation) {
        return invocation instanceof ProxyMethodInvocation proxy ? proxy.invocableClone() : invocation;
    }
}
