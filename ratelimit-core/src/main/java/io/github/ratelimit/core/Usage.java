package io.github.ratelimit.core;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What identifiers have used of their limits, read without counting a call (see {@link RateLimiter#usage(List)}): what
 * a product shows its customer ("1,234 of 10,000 this month, resets 1 December 00:00 UTC").
 *
 * @param readAt when the store read it, on its clock (Redis's for Redis)
 * @param windows one per distinct limit and identifier read, in the order asked
 */
public record Usage(Instant readAt, List<Usage.Window> windows) {

    public Usage {
        windows = List.copyOf(windows);
    }

    /**
     * One limit of one identifier.
     *
     * @param limit the limit read
     * @param identifier whose use it is
     * @param used what the current window or period counts (never below zero; a credit can bring it there)
     * @param remaining what may still be taken now; above the limit when a credit granted more than was used
     * @param resetsAt when what is counted now will all have left: the end of a fixed window or calendar period, when
     *     the last counted call leaves a sliding window, when a bucket is full again; {@code readAt} when nothing is
     *     counted in a sliding window or bucket
     */
    public record Window(RateLimit limit, ClientIdentifier identifier, long used, long remaining, Instant resetsAt) {

        /** The limit's name. */
        public String name() {
            return limit.name();
        }

        /** What the identifier may take per window or period: the limit, or a share's ceiling. */
        public long quota() {
            return limit.ceiling();
        }
    }

    /** The usage a decision of cost 0 reports (it takes nothing). */
    public static Usage of(Decision read) {
        List<Window> windows = new ArrayList<>(read.outcomes().size());
        for (Decision.LimitOutcome outcome : read.outcomes()) {
            LimitRequest request = outcome.request();
            long quota = request.limit().ceiling();
            windows.add(new Window(
                    request.limit(),
                    request.identifier(),
                    Math.max(0, quota - outcome.remaining()),
                    outcome.remaining(),
                    resetsAt(read, outcome)));
        }
        return new Usage(read.decidedAt(), windows);
    }

    /**
     * When what an outcome counted has all left: the decision's time plus the outcome's reset, or for a calendar quota
     * the start of the next period (the same instant from Redis, exact where the reset is rounded, as in memory).
     */
    public static Instant resetsAt(Decision read, Decision.LimitOutcome outcome) {
        CalendarPeriod period = outcome.request().limit().period();
        return period == null
                ? read.decidedAt().plus(outcome.resetAfter())
                : period.next(period.startOf(read.decidedAt()));
    }

    /** The same requests with cost 0, each taking nothing: what a usage read decides. */
    public static List<LimitRequest> reads(List<LimitRequest> requests) {
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("at least one request");
        }
        List<LimitRequest> reads = new ArrayList<>(requests.size());
        for (LimitRequest request : requests) {
            reads.add(LimitRequest.of(request.limit(), request.identifier(), 0));
        }
        return reads;
    }
}
