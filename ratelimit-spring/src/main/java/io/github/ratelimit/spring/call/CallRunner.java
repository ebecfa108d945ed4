package io.github.ratelimit.spring.call;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.decision.DecidedCall;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.internal.FromRedis;
import io.github.ratelimit.spring.internal.invocation.DeferredInvocation;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * Runs one call through the limits, from its decision to its end, whatever starts it: the interceptor of
 * {@code @RateLimited}, both path-rule filters, the outbound clients and both gateways hand it what the call asks
 * ({@link Start}) and the call itself, and only translate between their framework and it. The runner decides the call
 * once; answers a refusal (thrown, as a failed publisher or stage, or through the integration's {@link Refused}
 * answer, which may be a fallback); reports the admission to the caller (the RateLimit fields); runs the call; and
 * tells its end, so that a failure takes what limits that count failures ask and a charge takes what the call used.
 * Each shape of result has its strategy: a plain value ({@link #run}), a publisher of a web filter or client
 * ({@link #mono}), and a method's {@code Mono}, {@code Flux}, {@code CompletionStage} or Kotlin {@code suspend fun}
 * and {@code Flow} ({@link #deferred}, through the shape of its return type).
 */
public final class CallRunner {

    private CallRunner() {}

    /**
     * What a call asks of the limits.
     *
     * @param decisions the decision flow
     * @param caller who calls, told the admission
     * @param ask what the call asks, given the caller (as {@link RateLimitDecisions#decide})
     * @param after what follows the call: which results are failures, what a failure takes, what it is charged
     * @param refusal the exception that refuses a decided call, or null when it goes on ({@link DecidedCall#refusal}
     *     unless the integration marks its own refusals)
     */
    public record Start(
            RateLimitDecisions decisions,
            CallerContext caller,
            Function<CallerContext, RateLimitDecisions.Call> ask,
            RateLimitDecisions.After after,
            Function<DecidedCall, @Nullable RuntimeException> refusal) {

        /** A call refused by {@link DecidedCall#refusal()}. */
        public Start(
                RateLimitDecisions decisions,
                CallerContext caller,
                Function<CallerContext, RateLimitDecisions.Call> ask,
                RateLimitDecisions.After after) {
            this(decisions, caller, ask, after, DecidedCall::refusal);
        }

        DecidedCall begin() {
            return decisions.begin(caller, ask, after);
        }

        CompletionStage<DecidedCall> beginAsync() {
            return decisions.beginAsync(caller, ask, after);
        }

        /** Throws the refusal of a decided call; reports its admission to the caller otherwise. */
        DecidedCall admit(DecidedCall decided) {
            RuntimeException refused = refusal.apply(decided);
            if (refused != null) {
                throw refused;
            }
            decided.reportTo(caller);
            return decided;
        }
    }

    /** The call itself, given what tells the end the runner cannot see. */
    @FunctionalInterface
    public interface Body<T, E extends Throwable> {
        @Nullable
        T run(End end) throws E;
    }

    /** How an integration answers a refusal of the call (or a key that cannot be read): by throwing it, or otherwise. */
    @FunctionalInterface
    public interface Refused<T, E extends Throwable> {
        @Nullable
        T answer(RuntimeException refusal) throws E;

        /** Throws the refusal. */
        static <T, E extends Throwable> Refused<T, E> thrown() {
            return refusal -> {
                throw refusal;
            };
        }
    }

    /**
     * What a running call tells of its answer that its result does not show, in the integration's own outcomes (an
     * HTTP status, a gRPC status): the runner, not the integration, decides from the call's {@link
     * RateLimitDecisions.After#failure} whether it failed, and ends it. An outcome is told as it is set ({@link
     * #answering}), before any of the answer can reach the client, so that a caller's next call never slips past a
     * failure not yet counted; an answer that completes after the call returned (an async request, a stream) is told
     * when it completes ({@link #answersLater}, then {@link #answered}). The first end counts.
     */
    public static final class End {

        private final DecidedCall decided;
        private final RateLimitDecisions.After after;
        private volatile boolean later;

        End(DecidedCall decided, RateLimitDecisions.After after) {
            this.decided = decided;
            this.after = after;
        }

        /** Whether how the call ends matters: it was admitted under a limit that counts failures or charges. */
        public boolean awaited() {
            return decided.awaitsEnd();
        }

        /**
         * The answer's outcome, as it is set: a failure ends the call as failed now, within the Redis budget; any
         * other outcome leaves the end to the call's result (or to {@link #answered}).
         */
        public void answering(Object outcome) {
            if (after.failure(outcome)) {
                decided.failed(null);
            }
        }

        /** {@link #answering} without blocking: the stage completes once a failure is counted. */
        public CompletionStage<Void> answeringAsync(Object outcome) {
            return after.failure(outcome) ? decided.failedAsync(null) : CompletableFuture.completedFuture(null);
        }

        /** The call's answer completes after it returned: the runner leaves its end to {@link #answered}. */
        public void answersLater() {
            later = true;
        }

        /** The answer completed with this outcome: the call ends, failed or completed as its outcome says. */
        public void answered(@Nullable Object outcome) {
            decided.completed(outcome);
        }
    }

    /**
     * A call whose result is a plain value: decided on this thread, answered by {@code refused} when refused (or when
     * a key cannot be read), else reported, run, and ended by what it returns (its outcome, as the call's {@link
     * RateLimitDecisions.After} reads it) or throws, unless it {@linkplain End#answersLater answers later}.
     */
    public static <T, E extends Throwable> @Nullable T run(
            Start start, Refused<T, ? extends E> refused, Body<T, E> body) throws E {
        DecidedCall decided;
        RuntimeException refusal;
        try {
            decided = start.begin();
            refusal = start.refusal().apply(decided);
        } catch (RateLimitEvaluationException unreadable) {
            return refused.answer(unreadable);
        }
        if (refusal != null) {
            return refused.answer(refusal);
        }
        decided.reportTo(start.caller());
        End end = new End(decided, start.after());
        @Nullable T result;
        try {
            result = body.run(end);
        } catch (Throwable failure) {
            decided.failed(failure);
            throw failure;
        }
        if (!end.later) {
            decided.completed(result);
        }
        return result;
    }

    /**
     * A call whose result is a publisher of a web filter, a gateway or a client: decided without blocking when
     * subscribed, failing with the refusal when refused, else reported and run; an error of the call ends it as failed
     * before the error goes on. Its answer's outcome is told through the {@link End} it is given.
     */
    public static <T> Mono<T> mono(Start start, Function<End, Mono<T>> body) {
        return FromRedis.mono(start.beginAsync()).flatMap(decided -> {
            start.admit(decided);
            End end = new End(decided, start.after());
            Mono<T> run = body.apply(end);
            return decided.awaitsEnd()
                    ? run.onErrorResume(
                            error -> FromRedis.mono(decided.failedAsync(error)).then(Mono.error(error)))
                    : run;
        });
    }

    /**
     * A method whose return type is deferred ({@code Mono}, {@code Flux}, {@code CompletionStage}, a Kotlin {@code
     * suspend fun} or {@code Flow}): run in that type after its decision, which is taken when it is subscribed (for a
     * stage, when it is called) for the caller of that moment, and ended when its result completes, fails or is
     * cancelled. Null for a plain return type, after checking that this thread may block (naming the annotation), for
     * {@link #run}.
     *
     * @param declared the method as declared on the target's class, for the message
     * @param start what the call asks, given its caller
     */
    public static @Nullable Object deferred(
            MethodInvocation invocation,
            Method declared,
            String annotation,
            Supplier<CallerContext> callerOutsideReactor,
            Function<CallerContext, Start> start) {
        return DeferredInvocation.deferredOrNull(
                invocation, declared, annotation, callerOutsideReactor, () -> new DecidedStep(start));
    }
}
