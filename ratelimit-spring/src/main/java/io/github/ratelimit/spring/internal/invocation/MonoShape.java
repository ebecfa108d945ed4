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
import reactor.core.publisher.Mono;

/** A {@code Mono} (and a Kotlin {@code suspend fun}): the step when it is subscribed, each subscription its own. */
final class MonoShape extends ReturnShape {

    static final MonoShape INSTANCE = new MonoShape();

    private MonoShape() {}

    /**
     * singleOrEmpty: a Mono has at most one value, which is held back until the step has ended (a failure counted, a
     * lock released) so that the caller never sees the answer first; it does not cancel after the value either (that
     * would end the step as a cancellation).
     */
    @Override
    <R> Object defer(
            MethodInvocation invocation,
            Supplier<CallerContext> callerOutsideReactor,
            DeferredInvocation.Step<R> step) {
        return Mono.deferContextual(context -> DeferredInvocation.subscribed(
                invocation, DeferredInvocation.caller(context, callerOutsideReactor), step, publisher -> Flux.from(
                                publisher)
                        .singleOrEmpty()));
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object recover(Object result, Predicate<Throwable> ours, Function<Throwable, @Nullable Object> fallback) {
        return ((Mono<Object>) result)
                .onErrorResume(
                        ours,
                        e -> Mono.defer(
                                () -> Mono.from((Publisher<Object>) Objects.requireNonNull(fallback.apply(e)))));
    }
}
