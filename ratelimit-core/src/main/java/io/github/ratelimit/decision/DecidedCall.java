package io.github.ratelimit.decision;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * One call's way through the limits, from its decision to its end. Every integration (the interceptor, both web
 * filters, the outbound clients, both gateways) drives it the same way and only translates between its framework and
 * it:
 *
 * <ol>
 *   <li>{@link RateLimitDecisions#begin} decides the call once;
 *   <li>when {@link #refusal()} is not null, the integration answers it (429, 503) and the call never runs;
 *   <li>otherwise it reports the admission to its caller ({@link #reportTo}: the RateLimit fields) and runs the call;
 *   <li>it tells how the call ended, {@link #completed} with its result or {@link #failed}: a failure then takes what
 *       limits that count failures only ask, and limits that charge calls after they ran take what the call used.
 * </ol>
 *
 * <p>A call ends once: the first end told counts, later ones (a failing status seen twice, an error after it) change
 * nothing. An end that nothing follows ({@link #awaitsEnd()} false: no limit counts failures or charges, the caller
 * was exempt, the call was refused) costs nothing.
 */
public final class DecidedCall {

    private final @Nullable RateLimitDecisions decisions;
    private final RateLimitDecisions.Outcome outcome;
    private final RateLimitDecisions.After after;
    private final @Nullable RuntimeException refusal;
    /** What a failure of the call takes; null when nothing follows its end. */
    private final RateLimitDecisions.@Nullable Call failures;

    private final List<LimitRequest> requests;
    private final AtomicBoolean ended = new AtomicBoolean();

    private static final DecidedCall NOT_LIMITED =
            new DecidedCall(null, new RateLimitDecisions.NotLimited(), RateLimitDecisions.After.DEFAULT);

    /** A call no limit applies to, for an integration that has nothing to ask (no rule at all): it goes on, uncounted. */
    public static DecidedCall notLimited() {
        return NOT_LIMITED;
    }

    DecidedCall(
            @Nullable RateLimitDecisions decisions,
            RateLimitDecisions.Outcome outcome,
            RateLimitDecisions.After after) {
        this.decisions = decisions;
        this.outcome = outcome;
        this.after = after;
        this.refusal = outcome.refusal();
        RateLimitDecisions.Call call = outcome.call();
        RateLimitDecisions.Call failures =
                refusal != null || call == null || decisions == null ? null : after.failures(call);
        this.failures = failures != null && (!failures.requests().isEmpty() || after.charges()) ? failures : null;
        this.requests = call == null ? List.of() : call.requests();
    }

    /** How the call was decided. */
    public RateLimitDecisions.Outcome outcome() {
        return outcome;
    }

    /**
     * What refuses the call ({@link io.github.ratelimit.core.RateLimitExceededException} for 429, {@link
     * io.github.ratelimit.core.RedisUnavailableException} for 503), or null when it goes on. Built once: the same
     * exception on every call of this method.
     */
    public @Nullable RuntimeException refusal() {
        return refusal;
    }

    /** The decision that admitted the call, to report in the answer, or null when none was made. */
    public @Nullable Decision admitted() {
        return outcome.admitted();
    }

    /** Tells the caller the decision that admitted the call (its RateLimit fields), if one was made. */
    public void reportTo(CallerContext caller) {
        Decision admitted = outcome.admitted();
        if (admitted != null) {
            caller.allowed(admitted);
        }
    }

    /** Whether how the call ends matters: it was admitted under a limit that counts failures or charges calls. */
    public boolean awaitsEnd() {
        return failures != null;
    }

    /**
     * The call returned: a result the integration counts as a failure (see {@link RateLimitDecisions.After#failure})
     * takes what failures take; a charge takes what the result says it used. Waits for both within the Redis budget,
     * so that the caller's next call meets them; never throws.
     */
    public void completed(@Nullable Object result) {
        RateLimitDecisions flow = decisions;
        RateLimitDecisions.Call failed = endsNow();
        if (flow != null && failed != null) {
            if (after.failure(result)) {
                flow.countFailures(failed);
            }
            flow.charge(failed.what(), after.charged(requests, result, false));
        }
    }

    /**
     * The call failed ({@code error} may be null when the failure is an answer's status): takes what failures take
     * and what limits that charge failures charge. Waits within the Redis budget; never throws.
     */
    public void failed(@Nullable Throwable error) {
        RateLimitDecisions flow = decisions;
        RateLimitDecisions.Call failed = endsNow();
        if (flow != null && failed != null) {
            flow.countFailures(failed);
            flow.charge(failed.what(), after.charged(requests, null, true));
        }
    }

    /** {@link #completed} without blocking: the stage completes once the failure is counted and the charge taken. */
    public CompletionStage<Void> completedAsync(@Nullable Object result) {
        RateLimitDecisions flow = decisions;
        RateLimitDecisions.Call failed = endsNow();
        if (flow == null || failed == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletionStage<?> counted =
                after.failure(result) ? flow.countFailuresAsync(failed) : CompletableFuture.completedFuture(null);
        return counted.thenCombine(
                flow.chargeAsync(failed.what(), after.charged(requests, result, false)), (c, d) -> null);
    }

    /** {@link #failed} without blocking: the stage completes once the failure is counted and the charge taken. */
    public CompletionStage<Void> failedAsync(@Nullable Throwable error) {
        RateLimitDecisions flow = decisions;
        RateLimitDecisions.Call failed = endsNow();
        if (flow == null || failed == null) {
            return CompletableFuture.completedFuture(null);
        }
        return flow.countFailuresAsync(failed)
                .thenCombine(flow.chargeAsync(failed.what(), after.charged(requests, null, true)), (c, d) -> null);
    }

    /** What a failure takes, when this is the call's first end and something follows it; else null. */
    private RateLimitDecisions.@Nullable Call endsNow() {
        return failures != null && ended.compareAndSet(false, true) ? failures : null;
    }
}
