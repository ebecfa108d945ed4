package io.github.ratelimit.core;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter.Permit;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Told what the limiter does: decisions asked of a store, tokens issued, used and given back, locks and concurrency
 * slots taken or refused, give-backs of what a failed caller took, decisions made without the store, calls refused by an
 * operator's block, operators' changes.
 * Metrics and observations are listeners; so may be an application's audit log.
 *
 * <p>An operation that takes time is announced as it starts, on the caller's thread ({@code deciding},
 * {@code consumingToken}, ...); the {@link Completion} the listener returns is told how it ended, on whichever thread
 * ends it. Every method has a default that ignores the event, so a listener implements only what it needs and a method
 * added later cannot be forgotten. A listener must not block and should not throw: what it throws is logged and
 * ignored, never the caller's failure.
 *
 * <p>Listeners are added to the {@link RateLimitEvents} of each implementation that publishes them (the Redis ones and
 * the decision flow); the Spring Boot starter adds every {@code RateLimitListener} bean to each of them.
 */
public interface RateLimitListener {

    /** A decision asked of the store for these requests (one attempt: a call that waits makes several). */
    default Completion<Decision> deciding(List<LimitRequest> requests) {
        return Completion.ignored();
    }

    /** A token being issued for a purpose. */
    default Completion<IssuedToken> issuingToken(String purpose) {
        return Completion.ignored();
    }

    /** A token being used; the consumption says whether it was (its status). */
    default Completion<TokenConsumption> consumingToken(String purpose) {
        return Completion.ignored();
    }

    /** A use being given back to a token; whether it was. */
    default Completion<Boolean> releasingToken(String purpose) {
        return Completion.ignored();
    }

    /**
     * A lock being taken, waiting included; ends with its handle, or fails with {@link LockNotAcquiredException}
     * (held by another) or {@link RedisUnavailableException}.
     *
     * @param name the lock's name as its options give it ({@code @Locked}'s name), never its key; {@code programmatic}
     *     when there is none
     */
    default Completion<LockHandle> acquiringLock(String name) {
        return Completion.ignored();
    }

    /**
     * A job or method that skips its run when its lock is busy (a scheduled job, {@link LockManager#runIfFree}) skipped
     * one: another instance runs it, or ran it within its minimum hold.
     *
     * @param name the lock's name, as for {@link #acquiringLock}
     */
    default void lockSkipped(String name) {}

    /**
     * A holder lost its lock before releasing it: its renewals failed past the lease, its lifetime ended while it ran,
     * an operator released it, or the store had it no longer.
     *
     * @param name the lock's name, as for {@link #acquiringLock}
     */
    default void lockLost(String name, LockManager.LossReason reason) {}

    /**
     * A concurrency slot being taken; ends with its permit, or fails with {@link ConcurrencyLimitExceededException}
     * (all taken) or {@link RedisUnavailableException}.
     */
    default Completion<Permit> acquiringSlot(String name) {
        return Completion.ignored();
    }

    /**
     * A call decided without the store, because it could not answer in time, by the failure mode that applied:
     * {@code OPEN} (let through unchecked), {@code LOCAL} (decided in this JVM's memory) or {@code CLOSED} (refused).
     *
     * @param what what was being decided, as the caller names it (a method, a path rule)
     */
    default void fellBack(String what, FailureMode mode) {}

    /**
     * {@link #fellBack(String, FailureMode)} with why the store could not decide; what the decision flow tells. By
     * default, tells the shorter form, so a listener implements whichever it needs.
     */
    default void fellBack(String what, FailureMode mode, RedisUnavailableException cause) {
        fellBack(what, mode);
    }

    /**
     * A charge after a call ran (a limit that charges what calls used): taken, or not confirmed by the store.
     *
     * @param what the method charged
     * @param error why the store did not confirm it, or null when it was taken
     */
    default void charged(String what, long units, @Nullable Throwable error) {}

    /** A call refused because an operator blocked this client. */
    default void blocked(ClientIdentifier client) {}

    /**
     * A change an operator made for every instance, made through this instance.
     *
     * @param action {@code block}, {@code lift}, {@code override}, {@code override_removed}, {@code lock_released};
     *     {@code credit} and {@code reset} made by application code ({@code RateLimitUsage}); {@code refresh} and
     *     {@code refresh_rejected}, limits rebuilt (or not) by a refresh of the properties
     * @param target what it applies to: a client for blocks, a limit's name for overrides, credits and resets
     */
    default void operatorChanged(String action, String target) {}

    /**
     * What a write took was given back, or could not be, after its caller was told it failed (its answer was lost in a
     * timeout or a broken connection, or no replica acknowledged it): a token's use, a lock, a concurrency slot.
     *
     * @param what {@code token}, {@code lock} or {@code slot}; {@code rate-limit} for what a call one Cluster slot refused
     *     took in another, sent again past the call's budget; {@code charge} for a charge after a call sent again,
     *     {@code GIVEN_BACK} then meaning that the resend applied it and {@code NOTHING_TAKEN} that the first had
     */
    default void gaveBack(String what, GiveBack outcome) {}

    /**
     * A call that may wait for room ({@link RateLimiter#tryAcquire(List, java.time.Duration)}) was decided.
     *
     * @param requests what it asked for
     * @param outcome admitted, refused at once (its advice fell past its deadline), or refused after waiting (the slot
     *     it waited for was taken by another caller, and the next fell past its deadline)
     * @param waited how long it waited
     */
    default void waited(List<LimitRequest> requests, Wait outcome, java.time.Duration waited) {}

    /** How a call that may wait ended. */
    /**
     * A lease of a leased limit ({@link RateLimit#withLease}): a script call that asked Redis for permits (TAKEN, with
     * what it granted, 0 when the window had none left), permits given back unused (RETURNED), or permits never spent
     * (LOST: left in a lease when its window ended, or granted by a script call whose answer never came), which the
     * fleet admits less than the limit in that window.
     */
    default void leased(String name, Lease outcome, long units) {}

    /** What became of leased permits. */
    enum Lease {
        /** Asked of Redis for this instance's lease (one script call), with what it granted. */
        TAKEN,
        /** Given back to Redis unused, for other instances to take. */
        RETURNED,
        /** Never spent: left when the lease's window ended, or in a grant whose answer was lost. */
        LOST
    }

    enum Wait {
        /** Admitted, at once or after waiting. */
        ADMITTED,
        /** Refused without waiting: no slot before its deadline. */
        REFUSED_AT_ONCE,
        /** Refused after waiting: the slot it waited for was taken, and the next lay past its deadline. */
        REFUSED_AFTER_WAITING
    }

    /** How a give-back ended. */
    enum GiveBack {
        /** The attempt had taken something, which is given back. */
        GIVEN_BACK,
        /** The attempt had taken nothing (it ran and was refused, or will take nothing if it runs late). */
        NOTHING_TAKEN,
        /** Redis did not answer the give-back within its attempts: what was taken stays until it expires. */
        FAILED
    }

    /** Told how an operation ended: once, with its result or its failure. */
    interface Completion<T> {

        /** The operation ended with this result. */
        void succeeded(T result);

        /** The operation failed: a refusal told as an exception, Redis unavailable, or anything else. */
        void failed(Throwable error);

        /** A completion that ignores the end. */
        @SuppressWarnings("unchecked")
        static <T> Completion<T> ignored() {
            return (Completion<T>) RateLimitEvents.IGNORED;
        }
    }
}
