package io.github.ratelimit.spring.internal.invocation;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.internal.Futures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/** A {@code CompletionStage}: the step when the method is called, with the caller as it is then. */
final class StageShape extends ReturnShape {

    static final StageShape INSTANCE = new StageShape();

    private StageShape() {}

    @Override
    <R> Object defer(
            MethodInvocation invocation,
            Supplier<CallerContext> callerOutsideReactor,
            DeferredInvocation.Step<R> step) {
        return DeferredInvocation.stage(invocation, callerOutsideReactor.get().snapshot(), step);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object recover(Object result, Predicate<Throwable> ours, Function<Throwable, @Nullable Object> fallback) {
        return ((CompletionStage<Object>) result).exceptionallyCompose(error -> {
            Throwable e = Futures.cause(error);
            return ours.test(e) ? (CompletionStage<Object>) fallback.apply(e) : CompletableFuture.failedFuture(e);
        });
    }
}
