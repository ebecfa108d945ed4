package io.github.ratelimit.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Decides whether a call may proceed. Implementations must decide all requests of one call atomically. */
public interface RateLimiter {

    /**
     * Takes every request's cost if every limit has room, else takes nothing.
     *
     * @param requests at least one; requests for the same limit and identifier are counted once
     * @return the decision, never null
     */
    Decision tryAcquire(List<LimitRequest> requests);

    /**
     * The same decision without blocking the calling thread, for reactive callers: the stage completes with the
     * decision, or fails with {@link RedisUnavailableException} when the backend could not decide in time. The default
     * decides on the calling thread; implementations that wait for a network override it.
     */
    default CompletionStage<Decision> tryAcquireAsync(List<LimitRequest> requests) {
        try {
            return CompletableFuture.completedFuture(tryAcquire(requests));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Takes every request's cost as soon as every limit has room, waiting at most {@code maxWait}: a refused call waits
     * until the time the limiter advises and asks again, until that advice lies beyond the deadline; then the last
     * refusal is returned at once, without waiting for nothing. The requests are made with staggered advice, so that
     * callers refused together, on any instance, are told times one slot apart and do not come back together: a
     * waiting call takes two decisions when nobody else takes its slot, a few more under contention, never a poll. A
     * zero {@code maxWait} is {@link #tryAcquire(List)}. Interrupted while waiting, it returns the refusal with the
     * thread's interrupt flag set.
     *
     * @param requests at least one
     * @param maxWait how long the call may wait for room, at least zero
     * @return the decision that admitted the call, or the last refusal
     */
    default Decision tryAcquire(List<LimitRequest> requests, Duration maxWait) {
        return Waiting.blocking(this, requests, maxWait);
    }

    /**
     * {@link #tryAcquire(List, Duration)} without blocking any thread: the waits are timers.
     *
     * @param requests at least one
     * @param maxWait how long the call may wait for room, at least zero
     */
    default CompletionStage<Decision> tryAcquireAsync(List<LimitRequest> requests, Duration maxWait) {
        return Waiting.async(this, requests, maxWait);
    }

    /**
     * Charges {@code units} to every request's limit and identifier after the fact (a cost known only once a call ran,
     * such as the tokens a model's answer used), whether or not they have room: a limit may go past zero, and then
     * refuses until it has recovered. Each limit and identifier is charged once, atomically; the requests' own costs
     * are ignored. What past zero means depends on the algorithm: a sliding window refuses while the last window's
     * true count is at its limit, a fixed window until it ends, a token bucket until it has refilled what it owes. The
     * stage fails with {@link RedisUnavailableException} when the backend could not take the charge in time. Optional.
     *
     * @param requests the limits and identifiers to charge
     * @param units how many units, at least zero
     */
    default CompletionStage<Void> chargeAsync(List<LimitRequest> requests, long units) {
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException("this rate limiter cannot charge after the fact"));
    }

    /**
     * Refuses every call of a limit and identifier for a while, on every instance: for a limit that is a fixed window
     * of limit 1 whose calls cost 0 (decided with the call's other limits, in the same round trip), such as the pause
     * of outbound calls after an upstream answered 429 with {@code Retry-After}. A pause already in force for longer is
     * kept. The stage completes with whether this call started a pause (false when it extended one or one was in
     * force). Optional.
     */
    default CompletionStage<Boolean> pauseAsync(RateLimit limit, ClientIdentifier identifier, Duration duration) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("this rate limiter cannot pause"));
    }

    /**
     * What each request's identifier has used of its limit, read without counting a call and without refreshing any
     * expiry: a customer's view of their quota. The requests' costs are ignored; requests for several windows of one
     * limit name are read together, as calls decide them. Unlike a decision it tells no listener and never answers
     * from a refusal kept in memory. The default reads through {@link #tryAcquire(List)} with every cost 0, for
     * limiters whose decisions of cost 0 write nothing.
     *
     * @param requests at least one
     * @throws RedisUnavailableException when the store could not answer in time
     */
    default Usage usage(List<LimitRequest> requests) {
        return Usage.of(tryAcquire(Usage.reads(requests)));
    }

    /**
     * {@link #usage(List)} without blocking the calling thread, for reactive callers: the stage fails with
     * {@link RedisUnavailableException} when the store could not answer in time. The default reads on the calling
     * thread; implementations that wait for a network override it.
     */
    default CompletionStage<Usage> usageAsync(List<LimitRequest> requests) {
        try {
            return CompletableFuture.completedFuture(usage(requests));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Grants each request's identifier {@code units} more under its limit for the current window or period, on every
     * instance (a bill paid, a support ticket): a fixed window and a calendar quota count {@code units} fewer, below
     * zero if need be, so that more than the limit may be taken until the window or period ends; a sliding window
     * forgets its newest counted calls and a token bucket refills, each at most what it holds (a credit never carries
     * into a later window). Requests for several windows of one limit name are credited together. The requests' costs
     * are ignored. Optional.
     *
     * @param requests the limits and identifiers to credit
     * @param units how many units, at least 1
     * @return the fewest units any of the requests was granted (less than {@code units} only where less was counted)
     * @throws RedisUnavailableException when the store could not take the credit in time (it may still take it, once)
     */
    default long credit(List<LimitRequest> requests, long units) {
        throw new UnsupportedOperationException("this rate limiter cannot credit units");
    }

    /**
     * Forgets everything counted for one identifier under one limit, as if it had never called (an operator
     * unblocking a customer). Optional.
     *
     * @param identifier as the keys produce it: the key expression or kind, and the value
     */
    default void reset(RateLimit limit, ClientIdentifier identifier) {
        throw new UnsupportedOperationException("this rate limiter cannot reset limits");
    }

    /**
     * Takes one identifier out of a limit's penalty box (see {@link RateLimit#penalty()}) on every instance, its count
     * starting afresh; whether it was in it. Optional.
     */
    default boolean liftPenalty(RateLimit limit, ClientIdentifier identifier) {
        throw new UnsupportedOperationException("this rate limiter has no penalties");
    }

    /**
     * The penalties in force, at most {@code max}: each as the limit's key after the identifier's hash (the limit's
     * name, then how it counts; identifiers are never stored, only their hashes) with the hash, and the time left.
     * Optional; none by default.
     */
    default List<Penalty> penalties(int max) {
        return List.of();
    }

    /**
     * A penalty in force.
     *
     * @param limit the limit's name and how it counts, as its key names them ({@code pin-login:sw/60000})
     * @param client the hash of the identifier (the identifier itself is never stored)
     * @param left the time left
     */
    record Penalty(String limit, String client, Duration left) {}

    /**
     * Forgets what this instance keeps in memory about past decisions (refusals it serves without asking Redis), for
     * tests that delete the counts between test methods. Optional; does nothing by default.
     */
    default void forgetLocalState() {}

    /**
     * Some limits' quotas changed (an operator's override, a refresh of the properties): what this instance keeps of
     * refusals decided under the old quotas is forgotten, so that none outlives them; what was counted stays. By default
     * {@link #forgetLocalState()}.
     */
    default void quotasChanged() {
        forgetLocalState();
    }
}
