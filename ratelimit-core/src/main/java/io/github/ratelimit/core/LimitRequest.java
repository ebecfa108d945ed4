package io.github.ratelimit.core;

import io.github.ratelimit.core.internal.Messages;
import java.util.Objects;

/**
 * A request to take {@code cost} units of {@code limit} for one identifier (a user, an IP address, an API key). The
 * identifier is never stored as such: only a hash of it reaches Redis.
 *
 * <p>A shadow request is counted like any other but never refuses the call: its outcome says whether it would have. A
 * staggered request, when refused, is told a retry time spread from those of other refused callers (see
 * {@code RetryAdvice.STAGGERED}) instead of the earliest one. A check-only request is decided and reported like any
 * other but takes nothing, even when the call is admitted: for a call that is counted only if it fails.
 *
 * <p>{@link #of(RateLimit, ClientIdentifier, long)} makes an enforced request with the earliest advice; the
 * {@code as...} methods make the others from it.
 */
public record LimitRequest(
        RateLimit limit, ClientIdentifier identifier, long cost, boolean shadow, boolean staggered, boolean checkOnly) {

    public LimitRequest {
        Objects.requireNonNull(limit, "limit");
        if (identifier == null) {
            throw new IllegalArgumentException(Messages.empty("identifier") + " (limit '" + limit.name() + "')");
        }
        if (cost < 0 || cost > limit.ceiling()) {
            throw new IllegalArgumentException(Messages.between("cost", 0, "the limit " + limit.ceiling(), cost)
                    + " (limit '" + limit.name() + "')");
        }
    }

    /** An enforced request that takes its cost when the call is admitted, with the earliest retry advice. */
    public static LimitRequest of(RateLimit limit, ClientIdentifier identifier, long cost) {
        return new LimitRequest(limit, identifier, cost, false, false, false);
    }

    /** {@link #of(RateLimit, ClientIdentifier, long)} for an identifier the application names itself. */
    public static LimitRequest of(RateLimit limit, String identifier, long cost) {
        return of(limit, identifierOf(identifier, limit), cost);
    }

    /** The same request in shadow mode (or enforced again). */
    public LimitRequest asShadow(boolean shadow) {
        return new LimitRequest(limit, identifier, cost, shadow, staggered, checkOnly);
    }

    /** The same request with staggered retry advice (or the earliest again). */
    public LimitRequest asStaggered(boolean staggered) {
        return new LimitRequest(limit, identifier, cost, shadow, staggered, checkOnly);
    }

    /** The same request, deciding without taking anything. */
    public LimitRequest checkingOnly() {
        return new LimitRequest(limit, identifier, cost, shadow, staggered, true);
    }

    /** The same request, taking its cost. */
    public LimitRequest taking() {
        return new LimitRequest(limit, identifier, cost, shadow, staggered, false);
    }

    private static ClientIdentifier identifierOf(String identifier, RateLimit limit) {
        Objects.requireNonNull(limit, "limit");
        if (identifier == null || identifier.isEmpty()) {
            throw new IllegalArgumentException(Messages.empty("identifier") + " (limit '" + limit.name() + "')");
        }
        return ClientIdentifier.of(identifier);
    }
}
