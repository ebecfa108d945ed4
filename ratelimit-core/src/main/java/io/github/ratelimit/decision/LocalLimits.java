package io.github.ratelimit.decision;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.local.LocalRateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The limits this instance enforces in memory while Redis cannot decide (failure mode local): each limit divided by
 * the number of live instances, at least one unit (and at least the call's cost), on a {@link LocalRateLimiter}. Says
 * once in the log when local limits start and when they stop. What was counted here is never carried over to Redis, and
 * is kept until its windows have passed: a Redis that comes and goes (single calls running out of their budget while it
 * answers) does not give a fresh local share on each return. The advice it gives goes no further than the time until
 * Redis is asked again.
 */
final class LocalLimits {

    private static final Logger log = LoggerFactory.getLogger(LocalLimits.class);

    private final LocalRateLimiter limiter;
    private final IntSupplier instances;
    private final AtomicBoolean active = new AtomicBoolean();
    private final AtomicLong decidedThisTime = new AtomicLong();

    /**
     * @param maxEntries how many (limit, identifier) pairs are kept at most
     * @param instances how many instances share each limit right now, at least 1
     */
    LocalLimits(long maxEntries, IntSupplier instances) {
        this.limiter = new LocalRateLimiter(maxEntries);
        this.instances = instances;
    }

    /** Decides a call in this JVM, on this instance's share of each limit. */
    Decision decide(String what, List<LimitRequest> requests, RedisUnavailableException cause) {
        int share = Math.max(1, instances.getAsInt());
        // counted before the switch is looked at: a recovery that races with it reports this call, or the next does
        decidedThisTime.incrementAndGet();
        if (active.compareAndSet(false, true)) {
            log.warn(
                    "Rate limits are decided in this instance's memory from now on ({} first): Redis cannot decide"
                            + " ({}); each limit divided by {} instance(s), as last counted in Redis",
                    what,
                    cause.getMessage(),
                    share);
        }
        List<LimitRequest> shares = new ArrayList<>(requests.size());
        for (LimitRequest request : requests) {
            shares.add(shareOf(request, share));
        }
        return adviceWithin(limiter.tryAcquire(shares), cause.retryAfter());
    }

    /**
     * A decision from memory whose advice (each outcome's retry and reset) goes no further than {@code horizon}, the
     * time until Redis is asked again: memory knows only this instance's share since the outage began, and Redis may
     * answer otherwise then. A refusal repeated from memory costs the client nothing but the retry; a month's
     * {@code Retry-After} for a calendar quota would cost it the month.
     */
    static Decision adviceWithin(Decision decision, Duration horizon) {
        if (horizon == null || horizon.isNegative()) {
            return decision;
        }
        List<LimitOutcome> outcomes = new ArrayList<>(decision.outcomes().size());
        boolean capped = false;
        for (LimitOutcome outcome : decision.outcomes()) {
            if (outcome.resetAfter().compareTo(horizon) <= 0
                    && outcome.retryAfter().compareTo(horizon) <= 0) {
                outcomes.add(outcome);
                continue;
            }
            capped = true;
            outcomes.add(new LimitOutcome(
                    outcome.request(),
                    outcome.allowed(),
                    outcome.remaining(),
                    min(outcome.resetAfter(), horizon),
                    min(outcome.retryAfter(), horizon),
                    outcome.adviceCapped()));
        }
        return capped
                ? new Decision(
                        decision.allowed(),
                        outcomes,
                        decision.decidedAt(),
                        decision.servedLocally(),
                        decision.requests())
                : decision;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /**
     * Redis decided a call: local limits stop, if they were in force (what they counted stays until its windows pass).
     *
     * @return how many calls were decided in memory since local limits last stopped, as the log says, or -1 when they
     *     were not in force
     */
    long redisDecides() {
        if (active.get() && active.compareAndSet(true, false)) {
            long decided = decidedThisTime.getAndSet(0);
            log.warn(
                    "Rate limits are decided by Redis again; {} call(s) were decided in this instance's memory"
                            + " meanwhile (not carried over)",
                    decided);
            return decided;
        }
        return -1;
    }

    private static LimitRequest shareOf(LimitRequest request, int instances) {
        RateLimit limit = request.limit();
        long quota = Math.max(Math.max(1, limit.ceiling() / instances), request.cost());
        if (quota == limit.limit() && limit.ceiling() == limit.limit()) {
            return request;
        }
        // an instance's share of the caller's own ceiling, in memory: no period, penalty or budget shared with others
        RateLimit share = new RateLimit(limit.name(), limit.algorithm(), quota, limit.window(), limit.plan());
        return new LimitRequest(
                share,
                request.identifier(),
                request.cost(),
                request.shadow(),
                request.staggered(),
                request.checkOnly());
    }
}
