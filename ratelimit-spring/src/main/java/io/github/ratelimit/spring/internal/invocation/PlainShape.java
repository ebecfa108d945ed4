package io.github.ratelimit.spring.internal.invocation;

import io.github.ratelimit.core.CallerContext;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/** A plain value: the interceptor waits for its step on the calling thread, where it may block. */
final class PlainShape extends ReturnShape {

    static final PlainShape INSTANCE = new PlainShape();

    private PlainShape() {}

    @Override
    public boolean deferred() {
        return false;
    }

    @Override
    <R> Object defer(
            MethodInvocation invocation,
            Supplier<CallerContext> callerOutsideReactor,
            DeferredInvocation.Step<R> step) {
        throw new IllegalArgumentException("a plain return type is not deferred");
    }

    /** A plain value has been answered already: the interceptor calls the fallback where the refusal is thrown. */
    @Override
    public Object recover(Object result, Predicate<Throwable> ours, Function<Throwable, @Nullable Object> fallback) {
        return result;
    }
}
