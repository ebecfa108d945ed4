package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.autoconfigure.internal.WarmUpCalls;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts decisions per limit name and outcome ({@code ratelimit.decisions}) and times the Redis round trip
 * ({@code ratelimit.redis.duration}, operation {@code decide}); records the retry advice of refused calls
 * ({@code ratelimit.retry.advice}) and counts staggered advice capped at the horizon
 * ({@code ratelimit.retry.advice.capped}). Tags are limit names and fixed words, never keys.
 */
final class MeteredRateLimiter implements RateLimiter {

    private final RateLimiter delegate;
    private final MeterRegistry registry;
    private final Timer decide;
    /** The decision counters by their tags; names and plans are the declared ones, so the map stays small. */
    private final Map<Outcome, Counter> decisions = new ConcurrentHashMap<>();

    /** The advice summaries by limit name; names are the declared limits', so the maps stay small. */
    private final Map<String, DistributionSummary> staggeredAdvice = new ConcurrentHashMap<>();

    private final Map<String, DistributionSummary> earliestAdvice = new ConcurrentHashMap<>();

    MeteredRateLimiter(RateLimiter delegate, MeterRegistry registry) {
        this.delegate = delegate;
        this.registry = registry;
        this.decide = RateLimitMeters.redisTimer(registry, "decide");
    }

    @Override
    public Decision tryAcquire(List<LimitRequest> requests) {
        if (WarmUpCalls.isWarmUp(requests)) {
            return delegate.tryAcquire(requests);
        }
        long started = System.nanoTime();
        return counted(delegate.tryAcquire(requests), started);
    }

    @Override
    public CompletionStage<Decision> tryAcquireAsync(List<LimitRequest> requests) {
        if (WarmUpCalls.isWarmUp(requests)) {
            return delegate.tryAcquireAsync(requests);
        }
        long started = System.nanoTime();
        return delegate.tryAcquireAsync(requests).thenApply(decision -> counted(decision, started));
    }

    private Decision counted(Decision decision, long started) {
        decide.record(System.nanoTime() - started, java.util.concurrent.TimeUnit.NANOSECONDS);
        Map<List<String>, String> outcomeByName = new LinkedHashMap<>();
        for (LimitOutcome outcome : decision.outcomes()) {
            String name = outcome.request().limit().name();
            String plan = outcome.request().limit().plan();
            if (outcome.adviceCapped()) {
                Counter.builder("ratelimit.retry.advice.capped")
                        .description("Refused calls told the staggered-advice horizon instead of their own slot")
                        .tag("limit", name)
                        .register(registry)
                        .increment();
            }
            if (!outcome.allowed() && !outcome.request().shadow()) {
                // how far ahead refused callers are sent: with staggered advice, the length of the queue of retries
                advice(name, outcome.request().staggered())
                        .record(outcome.retryAfter().toMillis() / 1000.0);
            }
            String result = outcome.allowed()
                    ? "allowed"
                    : outcome.request().shadow()
                            ? "shadow_rejected"
                            : decision.servedLocally() ? "rejected_local" : "rejected";
            outcomeByName.merge(List.of(name, plan == null ? "none" : plan), result, MeteredRateLimiter::worse);
        }
        outcomeByName.forEach(
                (nameAndPlan, result) -> decisions(new Outcome(nameAndPlan.get(0), nameAndPlan.get(1), result))
                        .increment());
        return decision;
    }

    /** The tags of a decision counter. */
    private record Outcome(String limit, String plan, String result) {}

    /** A decision counter, kept once made, as the advice summaries are. */
    private Counter decisions(Outcome outcome) {
        Counter counter = decisions.get(outcome);
        return counter != null
                ? counter
                : decisions.computeIfAbsent(outcome, o -> Counter.builder("ratelimit.decisions")
                        .description("Rate limit decisions by limit name, plan and outcome")
                        .tag("limit", o.limit())
                        .tag("plan", o.plan())
                        .tag("outcome", o.result())
                        .register(registry));
    }

    /**
     * The advice summary of a limit, kept once made: a decision served in the JVM costs a few microseconds, and each
     * look-up of a meter in the registry about 0.3 µs more (see the metering benchmark).
     */
    private DistributionSummary advice(String name, boolean staggered) {
        Map<String, DistributionSummary> summaries = staggered ? staggeredAdvice : earliestAdvice;
        DistributionSummary summary = summaries.get(name);
        return summary != null
                ? summary
                : summaries.computeIfAbsent(name, n -> DistributionSummary.builder("ratelimit.retry.advice")
                        .description("Seconds refused calls were told to wait before retrying")
                        .baseUnit("seconds")
                        .tag("limit", n)
                        .tag("advice", staggered ? "staggered" : "earliest")
                        .register(registry));
    }

    @Override
    public void reset(RateLimit limit, ClientIdentifier identifier) {
        delegate.reset(limit, identifier);
    }

    @Override
    public void forgetLocalState() {
        delegate.forgetLocalState();
    }

    @Override
    public java.util.concurrent.CompletionStage<Void> chargeAsync(List<LimitRequest> requests, long units) {
        return delegate.chargeAsync(requests, units);
    }

    @Override
    public java.util.concurrent.CompletionStage<Boolean> pauseAsync(
            RateLimit limit, ClientIdentifier identifier, java.time.Duration duration) {
        return delegate.pauseAsync(limit, identifier, duration);
    }

    private static String worse(String a, String b) {
        if (a.equals("rejected") || b.equals("rejected")) {
            return "rejected";
        }
        if (a.equals("rejected_local") || b.equals("rejected_local")) {
            return "rejected_local";
        }
        return a.equals("shadow_rejected") || b.equals("shadow_rejected") ? "shadow_rejected" : "allowed";
    }
}
