package io.github.ratelimit.spring.call;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.decision.DecidedCall;
import io.github.ratelimit.spring.internal.invocation.DeferredInvocation;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** The decision of a method whose result is deferred: what it gives is the decided call, whose end it tells. */
final class DecidedStep implements DeferredInvocation.Step<DecidedStep.Running> {

    private final Function<CallerContext, CallRunner.Start> start;

    DecidedStep(Function<CallerContext, CallRunner.Start> start) {
        this.start = start;
    }

    /** A decided call, what it asked, and the value its result gave. */
    static final class Running {

        final DecidedCall decided;
        final CallRunner.Start start;
        volatile @Nullable Object value;

        Running(DecidedCall decided, CallRunner.Start start) {
            this.decided = decided;
            this.start = start;
        }
    }

    @Override
    public CompletionStage<Running> start(CallerContext caller) {
        CallRunner.Start asked = start.apply(caller);
        return asked.beginAsync().thenApply(decided -> new Running(asked.admit(decided), asked));
    }

    @Override
    public void value(Running running, Object value) {
        running.value = value;
    }

    @Override
    public boolean failure(Running running, Object value) {
        return running.start.after().failure(value);
    }

    @Override
    public CompletionStage<?> finish(Running running, DeferredInvocation.End end) {
        Object value = running.value;
        return switch (end) {
            case COMPLETED -> running.decided.completedAsync(value);
            // a failing value is a completed call whose answer failed; anything else failed without one
            case FAILED ->
                value != null && failure(running, value)
                        ? running.decided.completedAsync(value)
                        : running.decided.failedAsync(null);
            case CANCELLED, NOT_STARTED -> CompletableFuture.completedFuture(null);
        };
    }
}
