package io.github.ratelimit.spring.internal.invocation;

import io.github.ratelimit.core.CallerContext;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * A type Spring's {@code ReactiveAdapterRegistry} adapts (a Kotlin {@code Flow} or {@code Deferred}, ...): run as a
 * {@code Flux} (a {@code Mono} for a single value) and handed back in its own type.
 */
final class AdaptedShape extends ReturnShape {

    private final org.springframework.core.ReactiveAdapter adapter;

    AdaptedShape(org.springframework.core.ReactiveAdapter adapter) {
        this.adapter = adapter;
    }

    @Override
    <R> Object defer(
            MethodInvocation invocation,
            Supplier<CallerContext> callerOutsideReactor,
            DeferredInvocation.Step<R> step) {
        return adapter.fromPublisher(
                adapter.isMultiValue()
                        ? (Publisher<?>) FluxShape.INSTANCE.defer(invocation, callerOutsideReactor, step)
                        : (Publisher<?>) MonoShape.INSTANCE.defer(invocation, callerOutsideReactor, step));
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object recover(Object result, Predicate<Throwable> ours, Function<Throwable, @Nullable Object> fallback) {
        return adapter.fromPublisher(Flux.from((Publisher<Object>) adapter.toPublisher(result))
                .onErrorResume(
                        ours,
                        e -> Flux.defer(() -> Flux.from((Publisher<Object>) adapter.toPublisher(fallback.apply(e))))));
    }
}
