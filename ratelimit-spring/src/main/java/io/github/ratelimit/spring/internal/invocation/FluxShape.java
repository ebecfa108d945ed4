package io.github.ratelimit.spring.internal.invocation;

import io.github.ratelimit.core.CallerContext;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/** A {@code Flux} (and a Kotlin {@code suspend fun} returning a {@code Flow}): the step when it is subscribed. */
final class FluxShape extends ReturnShape {

    static final FluxShape INSTANCE = new FluxShape();

    private FluxShape() {}

    @Override
    <R> Object defer(
            MethodInvocation invocation,
            Supplier<CallerContext> callerOutsideReactor,
            DeferredInvocation.Step<R> step) {
        return Flux.deferContextual(context -> DeferredInvocation.subscribed(
                invocation, DeferredInvocation.caller(context, callerOutsideReactor), step, Flux::from));
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object recover(Object result, Predicate<Throwable> ours, Function<Throwable, @Nullable Object> fallback) {
        return ((Flux<Object>) result)
                .onErrorResume(
                        ours,
                        e -> Flux.defer(
                                () -> Flux.from((Publisher<Object>) Objects.requireNonNull(fallback.apply(e)))));
    }
}
