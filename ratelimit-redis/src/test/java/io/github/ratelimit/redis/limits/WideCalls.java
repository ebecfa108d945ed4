package io.github.ratelimit.redis.limits;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.CalendarPeriod;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.Usage;
import io.github.ratelimit.redis.internal.RedisKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A Redis rate limiter whose every call is too wide for Lua's locals: before the call's own requests it reads 12
 * limits of every kind (sliding windows, several windows of one name, fixed windows, token buckets, a calendar quota,
 * staggered advice, a penalty) for the call's first identifier, which never refuse, and leaves their answers out. So
 * the call's own keys are decided at positions 13 and on of a script whose values are in a table
 * ({@link DecisionScripts#tabled}), and the kit's contracts hold on a wide shape of every kind.
 */
final class WideCalls implements RateLimiter {

    private static final String PAD = "pad-";
    private static final long HUGE = RateLimitScriptCodec.MAX_SLIDING_LIMIT;
    private static final List<RateLimit> PADDING = List.of(
            RateLimit.of(PAD + "sliding", Algorithm.SLIDING_WINDOW, HUGE, 60_000),
            RateLimit.of(PAD + "windows", Algorithm.SLIDING_WINDOW, HUGE, 1_000),
            RateLimit.of(PAD + "windows", Algorithm.SLIDING_WINDOW, HUGE, 60_000),
            RateLimit.of(PAD + "windows", Algorithm.SLIDING_WINDOW, HUGE, 3_600_000),
            RateLimit.of(PAD + "fixed", Algorithm.FIXED_WINDOW, HUGE, 60_000),
            RateLimit.of(PAD + "penalty", Algorithm.FIXED_WINDOW, HUGE, 60_000).withPenalty(Duration.ofMinutes(1)),
            RateLimit.of(PAD + "bucket", Algorithm.TOKEN_BUCKET, HUGE, 60_000),
            RateLimit.of(PAD + "calendar", Algorithm.FIXED_WINDOW, HUGE, 60_000)
                    .inCalendar(CalendarPeriod.of(CalendarPeriod.Unit.DAY)),
            RateLimit.of(PAD + "staggered", Algorithm.SLIDING_WINDOW, HUGE, 60_000),
            RateLimit.of(PAD + "staggered-fixed", Algorithm.FIXED_WINDOW, HUGE, 60_000),
            RateLimit.of(PAD + "sliding-2", Algorithm.SLIDING_WINDOW, HUGE, 3_600_000),
            RateLimit.of(PAD + "bucket-2", Algorithm.TOKEN_BUCKET, HUGE, 3_600_000));

    private final RedisRateLimiter limiter;

    WideCalls(RedisRateLimiter limiter) {
        this.limiter = limiter;
    }

    /** The shape of this limiter's call of one request (one Redis, so one hash slot). */
    static String shapeOf(LimitRequest request) {
        return shapeOnOneRedis(padded(List.of(request)));
    }

    /** The shape of the script a call of these requests takes on one Redis (one hash slot). */
    static String shapeOnOneRedis(List<LimitRequest> requests) {
        return shapeOnOneRedis(requests, 0);
    }

    /** The same for a waiting call that may hold a slot within {@code holdWithinMs} (0: it may not). */
    static String shapeOnOneRedis(List<LimitRequest> requests, long holdWithinMs) {
        ScriptCallKeys keys = new ScriptCallKeys(requests, new RedisKeys("kit:")).plan(false);
        return DecisionScripts.shape(keys.arguments(
                keys.scriptKeys.values().iterator().next(),
                new RateLimitScriptCodec(RedisRateLimiter.DEFAULT_HORIZON_WINDOWS),
                System.currentTimeMillis(),
                holdWithinMs));
    }

    private static List<LimitRequest> padded(List<LimitRequest> requests) {
        if (requests.isEmpty()) {
            return requests;
        }
        ClientIdentifier identifier = requests.get(0).identifier();
        List<LimitRequest> padded = new ArrayList<>(PADDING.size() + requests.size());
        for (RateLimit limit : PADDING) {
            padded.add(LimitRequest.of(limit, identifier, 0)
                    .asStaggered(limit.name().startsWith(PAD + "staggered")));
        }
        padded.addAll(requests);
        return padded;
    }

    private static boolean padding(LimitRequest request) {
        return request.limit().name().startsWith(PAD);
    }

    private static Decision own(Decision decision) {
        List<Decision.LimitOutcome> outcomes = new ArrayList<>();
        for (Decision.LimitOutcome outcome : decision.outcomes()) {
            if (!padding(outcome.request())) {
                outcomes.add(outcome);
            }
        }
        List<LimitRequest> requests = new ArrayList<>();
        for (LimitRequest request : decision.requests()) {
            if (!padding(request)) {
                requests.add(request);
            }
        }
        return new Decision(decision.allowed(), outcomes, decision.decidedAt(), decision.servedLocally(), requests);
    }

    @Override
    public Decision tryAcquire(List<LimitRequest> requests) {
        return own(limiter.tryAcquire(padded(requests)));
    }

    @Override
    public CompletionStage<Decision> tryAcquireAsync(List<LimitRequest> requests) {
        return limiter.tryAcquireAsync(padded(requests)).thenApply(WideCalls::own);
    }

    @Override
    public CompletionStage<Usage> usageAsync(List<LimitRequest> requests) {
        return limiter.usageAsync(padded(requests)).thenApply(WideCalls::own);
    }

    private static Usage own(Usage usage) {
        return new Usage(
                usage.readAt(),
                usage.windows().stream()
                        .filter(w -> !w.limit().name().startsWith(PAD))
                        .toList());
    }

    @Override
    public Usage usage(List<LimitRequest> requests) {
        return own(limiter.usage(padded(requests)));
    }

    @Override
    public CompletionStage<Void> chargeAsync(List<LimitRequest> requests, long units) {
        return limiter.chargeAsync(requests, units);
    }

    @Override
    public CompletionStage<Boolean> pauseAsync(RateLimit limit, ClientIdentifier identifier, Duration duration) {
        return limiter.pauseAsync(limit, identifier, duration);
    }

    @Override
    public long credit(List<LimitRequest> requests, long units) {
        return limiter.credit(requests, units);
    }

    @Override
    public void reset(RateLimit limit, ClientIdentifier identifier) {
        limiter.reset(limit, identifier);
    }

    @Override
    public boolean liftPenalty(RateLimit limit, ClientIdentifier identifier) {
        return limiter.liftPenalty(limit, identifier);
    }

    @Override
    public List<Penalty> penalties(int max) {
        return limiter.penalties(max);
    }

    @Override
    public void forgetLocalState() {
        limiter.forgetLocalState();
    }
}
