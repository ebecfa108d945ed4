package io.github.ratelimit.core;

import java.util.Objects;

/**
 * A request to take {@code cost} units of {@code limit} for one identifier (a user, an IP address, an API
 * key). The identifier is never stored as such: only a hash of it reaches Redis.
 *
 * <p>A shadow request is counted like any other but never refuses the call: its outcome says whether it
 * would have. A staggered request, when refused, is told a retry time spread from those of other refused callers
 * (see {@code RetryAdvice.STAGGERED}) instead of the earliest one. A check-only request is decided and reported like
 * any other but takes nothing, even when the call is admitted: for a call that is counted only if it fails.
 */
public record LimitRequest(
        RateLimit limit, String identifier, long cost, boolean shadow, boolean staggered, boolean checkOnly) {

    /** A request that takes its cost when the call is admitted. */
    public LimitRequest(RateLimit limit, String identifier, long cost, boolean shadow, boolean staggered) {
        this(limit, identifier, cost, shadow, staggered, false);
    }

    /** The same request, deciding without taking anything. */
    public LimitRequest checkingOnly() {
        return new LimitRequest(limit, identifier, cost, shadow, staggered, true);
    }

    /** The same request, taking its cost. */
    public LimitRequest taking() {
        return new LimitRequest(limit, identifier, cost, shadow, staggered, false);
    }

    /** A request with the earliest retry advice. */
    public LimitRequest(RateLimit limit, String identifier, long cost, boolean shadow) {
        this(limit, identifier, cost, shadow, false);
    }

    /** A request for a client identifier (its canonical form). */
    public LimitRequest(RateLimit limit, ClientIdentifier client, long cost, boolean shadow, boolean staggered) {
        this(limit, client.canonical(), cost, shadow, staggered);
    }

    /** A request for a client identifier (its canonical form). */
    public LimitRequest(RateLimit limit, ClientIdentifier client, long cost, boolean shadow) {
        this(limit, client.canonical(), cost, shadow);
    }

    /** An enforced request. */
    public LimitRequest(RateLimit limit, String identifier, long cost) {
        this(limit, identifier, cost, false);
    }

    public LimitRequest {
        Objects.requireNonNull(limit, "limit");
        if (identifier == null || identifier.isEmpty()) {
            throw new IllegalArgumentException(Messages.empty("identifier") + " (limit '" + limit.name() + "')");
        }
        if (cost < 0 || cost > limit.limit()) {
            throw new IllegalArgumentException("cost must be between 0 and the limit " + limit.limit() + ", but was "
                    + cost + " (limit '" + limit.name() + "')");
        }
    }
}
