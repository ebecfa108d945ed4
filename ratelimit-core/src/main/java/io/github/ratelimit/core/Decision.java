package io.github.ratelimit.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * The answer for one call: admitted only if every limit had room, in which case each took its cost;
 * otherwise nothing was taken from any limit.
 *
 * @param allowed whether the call was admitted
 * @param outcomes one per distinct request, in the order given; a refusal served locally lists only the requests
 *     that refused
 * @param decidedAt the Redis server's time when the decision was made (for a refusal served locally, the time of the
 *     Redis refusal it repeats, plus the time passed since on the JVM's monotonic clock; for a waiting call admitted to a
 *     slot held for it, the slot's time: see {@link #startsIn})
 * @param servedLocally whether the refusal was served in the JVM, repeating an earlier Redis refusal of the same
 *     limit and identifier that still stands, without a Redis call
 * @param requests every request of the call, in order, including those a refusal served locally does not list: what
 *     names a limit in the answer, so that a call's items have the same names however it was decided
 */
public record Decision(
        boolean allowed,
        List<LimitOutcome> outcomes,
        Instant decidedAt,
        boolean servedLocally,
        List<LimitRequest> requests) {

    public Decision {
        outcomes = List.copyOf(outcomes);
        requests = List.copyOf(requests);
    }

    /** A decision made by Redis: one outcome per request. */
    public Decision(boolean allowed, List<LimitOutcome> outcomes, Instant decidedAt) {
        this(allowed, outcomes, decidedAt, false, requestsOf(outcomes));
    }

    /** On every decision's path: a plain loop into an array, which {@code List.of} keeps without copying again. */
    private static List<LimitRequest> requestsOf(List<LimitOutcome> outcomes) {
        LimitRequest[] requests = new LimitRequest[outcomes.size()];
        for (int i = 0; i < requests.length; i++) {
            requests[i] = outcomes.get(i).request();
        }
        return List.of(requests);
    }

    /** A refusal served in the JVM: the outcomes of the requests that refused, among all the call's requests. */
    public static Decision servedLocally(List<LimitOutcome> refused, Instant decidedAt, List<LimitRequest> requests) {
        for (LimitOutcome outcome : refused) {
            if (!requests.contains(outcome.request())) {
                throw new IllegalArgumentException("outcome of a request the call did not make: " + outcome);
            }
        }
        return new Decision(false, refused, decidedAt, true, requests);
    }

    /** The enforced limits that had no room; empty when allowed. */
    public List<LimitOutcome> rejected() {
        return outcomes.stream()
                .filter(o -> !o.allowed() && !o.request().shadow())
                .toList();
    }

    /** The shadow limits that had no room: the call would have been refused if they were enforced. */
    public List<LimitOutcome> shadowRejected() {
        return outcomes.stream()
                .filter(o -> !o.allowed() && o.request().shadow())
                .toList();
    }

    /** How long to wait before the same call can succeed: the longest wait of any rejecting enforced limit. */
    public Duration retryAfter() {
        return outcomes.stream()
                .filter(o -> !o.allowed() && !o.request().shadow())
                .map(LimitOutcome::retryAfter)
                .max(Comparator.naturalOrder())
                .orElse(Duration.ZERO);
    }

    /**
     * How long the caller waits before going on: zero, unless a call that waits for room
     * ({@link RateLimiter#tryAcquire(List, Duration)}) was admitted to a slot held ahead for it, counted at that slot's
     * time ({@link #decidedAt}); then the time from the decision to the slot, as a {@link SlotHolder} answers. The
     * waiting methods wait it, and return the decision as of the slot (this zero, each reset counted from the slot).
     */
    public Duration startsIn() {
        Duration longest = Duration.ZERO;
        for (LimitOutcome outcome : outcomes) {
            if (outcome.allowed() && outcome.retryAfter().compareTo(longest) > 0) {
                longest = outcome.retryAfter();
            }
        }
        return longest;
    }

    /** The fewest units left in any limit. */
    public long remaining() {
        return outcomes.stream().mapToLong(LimitOutcome::remaining).min().orElse(0);
    }

    /**
     * How one {@link LimitRequest} fared.
     *
     * @param request the request
     * @param allowed whether this limit had room for the request
     * @param remaining units left after this decision (nothing is taken when the whole decision is a rejection)
     * @param resetAfter time until this limit is back to its full quota, if nothing more is taken
     * @param retryAfter when to retry: for a refused request the advice (the earliest time it could succeed, or a later
     *     staggered slot); zero when it was allowed, unless it was allowed at a slot held ahead (the time to that slot,
     *     see {@link Decision#startsIn})
     * @param adviceCapped whether staggered advice reached the horizon, so that the caller was told the horizon
     */
    public record LimitOutcome(
            LimitRequest request,
            boolean allowed,
            long remaining,
            Duration resetAfter,
            Duration retryAfter,
            boolean adviceCapped) {

        /** An outcome whose advice was not capped. */
        public LimitOutcome(
                LimitRequest request, boolean allowed, long remaining, Duration resetAfter, Duration retryAfter) {
            this(request, allowed, remaining, resetAfter, retryAfter, false);
        }
    }
}
