package io.github.ratelimit.spring.metrics;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.AdaptivePermit;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter.Permit;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The meters of what the limiter does, told as events: decisions per limit name, plan and outcome
 * ({@code ratelimit.decisions}) and their Redis round trip ({@code ratelimit.redis.duration}, operation {@code decide});
 * the retry advice of refused calls ({@code ratelimit.retry.advice}, {@code ratelimit.retry.advice.capped}); token
 * operations ({@code ratelimit.tokens}, timed as {@code token.issue}, {@code token.consume}, {@code token.release}); lock
 * acquisitions ({@code ratelimit.locks.acquisitions}, {@code skipped} among them; {@code ratelimit.locks.wait}), locks
 * lost ({@code ratelimit.locks.lost}); concurrency slots
 * ({@code ratelimit.concurrency}) and adaptive limits' gauges ({@link AdaptiveMeters}); give-backs ({@code ratelimit.givebacks}); operators' changes
 * ({@code ratelimit.operator.changes}). Tags are limit names,
 * purposes and fixed words, never keys. Meters are kept once made: a decision served in the JVM costs a few
 * microseconds, and each look-up of a meter in the registry about 0.3 µs more.
 */
public final class RateLimitMetricsListener implements RateLimitListener {

    private final MeterRegistry registry;
    private final Timer decide;
    private final Timer issue;
    private final Timer consume;
    private final Timer release;
    private final Timer lockWait;
    /** Counts a decision (made once: a method reference made per call would be an allocation per decision). */
    private final Consumer<Decision> decided = this::decided;

    private static final Consumer<Throwable> NOTHING = error -> {};
    private final Map<MeterKey, Counter> counters = new ConcurrentHashMap<>();
    private final Map<List<String>, DistributionSummary> advice = new ConcurrentHashMap<>();
    private final AdaptiveMeters adaptive;

    public RateLimitMetricsListener(MeterRegistry registry) {
        this.registry = registry;
        this.adaptive = new AdaptiveMeters(registry);
        this.decide = RateLimitMeters.redisTimer(registry, "decide");
        this.issue = RateLimitMeters.redisTimer(registry, "token.issue");
        this.consume = RateLimitMeters.redisTimer(registry, "token.consume");
        this.release = RateLimitMeters.redisTimer(registry, "token.release");
        this.lockWait = Timer.builder("ratelimit.locks.wait")
                .description("Time spent acquiring locks, waiting included")
                .register(registry);
        for (String action : List.of(
                "block",
                "lift",
                "override",
                "override_removed",
                "adaptive_steered",
                "adaptive_cleared",
                "lock_released",
                "credit",
                "reset",
                "refresh",
                "refresh_rejected")) {
            operatorChanges(action); // shown at zero before the first change
        }
        for (Wait outcome : Wait.values()) {
            waits(outcome);
        }
        tokens("issue", "issued");
        for (Status status : Status.values()) {
            tokens("consume", status.name().toLowerCase(Locale.ROOT));
        }
        tokens("release", "released");
        tokens("release", "not_released");
        for (String outcome : List.of("acquired", "busy", "skipped", "unavailable")) {
            locks(outcome);
        }
        for (LockManager.LossReason reason : LockManager.LossReason.values()) {
            lost(reason);
        }
        for (String what : List.of("token", "lock", "slot")) {
            for (GiveBack outcome : GiveBack.values()) {
                giveBacks(what, outcome); // so are give-backs
            }
        }
    }

    @Override
    public Completion<Decision> deciding(List<LimitRequest> requests) {
        return timed(decide, decided, NOTHING);
    }

    @Override
    public Completion<IssuedToken> issuingToken(String purpose) {
        return timed(issue, issued -> tokens("issue", "issued").increment(), NOTHING);
    }

    @Override
    public Completion<TokenConsumption> consumingToken(String purpose) {
        return timed(
                consume,
                consumption -> tokens("consume", consumption.status().name().toLowerCase(Locale.ROOT))
                        .increment(),
                NOTHING);
    }

    @Override
    public Completion<Boolean> releasingToken(String purpose) {
        return timed(
                release,
                released -> tokens("release", released ? "released" : "not_released")
                        .increment(),
                NOTHING);
    }

    @Override
    public Completion<LockHandle> acquiringLock(String name) {
        return timed(lockWait, lock -> locks("acquired").increment(), error -> {
            if (error instanceof LockNotAcquiredException) {
                locks("busy").increment();
            } else if (error instanceof RedisUnavailableException) {
                locks("unavailable").increment();
            }
        });
    }

    @Override
    public Completion<Permit> acquiringSlot(String name) {
        String limit = name == null ? "none" : name;
        return new Completion<>() {
            @Override
            public void succeeded(Permit permit) {
                slots(limit, "acquired");
                if (permit instanceof AdaptivePermit taken) {
                    adaptive.taken(limit, taken);
                }
            }

            @Override
            public void failed(Throwable error) {
                if (error instanceof ConcurrencyLimitExceededException refused) {
                    adaptive.refused(limit, refused.max());
                }
                slots(
                        limit,
                        error instanceof ConcurrencyLimitExceededException
                                ? "refused"
                                : error instanceof RedisUnavailableException ? "unavailable" : "error");
            }
        };
    }

    @Override
    public void gaveBack(String what, GiveBack outcome) {
        giveBacks(what, outcome).increment();
    }

    @Override
    public void waited(List<LimitRequest> requests, Wait outcome, Duration waited) {
        waits(outcome).increment();
    }

    private Counter waits(Wait outcome) {
        return counter(
                "ratelimit.wait",
                "Calls that may wait for room, by how they ended: admitted, refused at once or after waiting",
                "outcome",
                outcome.name().toLowerCase(Locale.ROOT));
    }

    private Counter giveBacks(String what, GiveBack outcome) {
        return counter(
                "ratelimit.givebacks",
                "What callers told of a failure had taken, given back (or not) by attempt",
                "what",
                what,
                "outcome",
                outcome.name().toLowerCase(Locale.ROOT));
    }

    @Override
    public void leased(String name, Lease outcome, long units) {
        String tag = outcome.name().toLowerCase(Locale.ROOT);
        counter(
                        "ratelimit.leases",
                        "Leases of leased limits: script calls that asked Redis for one (taken, granted or not),"
                                + " given back unused (returned), or ended with permits unspent (lost)",
                        "limit",
                        name,
                        "outcome",
                        tag)
                .increment();
        counter(
                        "ratelimit.leases.permits",
                        "Permits of leased limits taken from Redis, given back unused, or lost (left in a lease at its"
                                + " window's end, or in a grant whose answer was lost): what the fleet may admit less",
                        "limit",
                        name,
                        "outcome",
                        tag)
                .increment(units);
    }

    @Override
    public void operatorChanged(String action, String target) {
        operatorChanges(action).increment();
    }

    /** Times an operation from now; counts its end with {@code counted} or {@code failed}. */
    private static <T> Completion<T> timed(Timer timer, Consumer<T> counted, Consumer<Throwable> failed) {
        long started = System.nanoTime();
        return new Completion<>() {
            @Override
            public void succeeded(T result) {
                timer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                counted.accept(result);
            }

            @Override
            public void failed(Throwable error) {
                timer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                failed.accept(error);
            }
        };
    }

    private void decided(Decision decision) {
        Map<List<String>, String> outcomeByName = new LinkedHashMap<>();
        for (LimitOutcome outcome : decision.outcomes()) {
            String name = outcome.request().limit().name();
            String plan = outcome.request().limit().plan();
            if (outcome.adviceCapped()) {
                advicesCapped(name).increment();
            }
            RateLimit limit = outcome.request().limit();
            if (!outcome.allowed()
                    && !outcome.request().shadow()
                    && !decision.servedLocally()
                    && !limit.penalty().isZero()
                    && outcome.retryAfter().equals(limit.penalty())) {
                penalties(name).increment(); // a box starts with the whole penalty; one in force tells the time left
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
            outcomeByName.merge(List.of(name, plan == null ? "none" : plan), result, RateLimitMetricsListener::worse);
        }
        outcomeByName.forEach((nameAndPlan, result) ->
                decisions(nameAndPlan.get(0), nameAndPlan.get(1), result).increment());
    }

    private Counter tokens(String operation, String outcome) {
        return counter(
                "ratelimit.tokens",
                "Single-use token operations by outcome",
                "operation",
                operation,
                "outcome",
                outcome);
    }

    @Override
    public void lockSkipped(String name) {
        locks("skipped").increment();
    }

    @Override
    public void lockLost(String name, LockManager.LossReason reason) {
        lost(reason).increment();
    }

    private Counter lost(LockManager.LossReason reason) {
        return counter(
                "ratelimit.locks.lost",
                "Locks their holder lost before releasing them, by reason",
                "reason",
                reason.name().toLowerCase(Locale.ROOT));
    }

    private Counter locks(String outcome) {
        return counter("ratelimit.locks.acquisitions", "Lock acquisitions by outcome", "outcome", outcome);
    }

    /** A declared limit's decision counters (and penalty counter), at zero until its first decision. */
    void declared(RateLimit limit) {
        for (String outcome : List.of("allowed", "rejected", "rejected_local", "shadow_rejected")) {
            decisions(limit.name(), limit.plan() == null ? "none" : limit.plan(), outcome);
        }
        if (!limit.penalty().isZero()) {
            penalties(limit.name());
        }
        advicesCapped(limit.name());
    }

    private Counter advicesCapped(String limit) {
        return counter(
                "ratelimit.retry.advice.capped",
                "Refused calls told the staggered-advice horizon instead of their own slot",
                "limit",
                limit);
    }

    private Counter penalties(String limit) {
        return counter("ratelimit.penalties", "Penalty boxes started, by limit name", "limit", limit);
    }

    private Counter decisions(String limit, String plan, String outcome) {
        return counter(
                "ratelimit.decisions",
                "Rate limit decisions by limit name, plan and outcome",
                "limit",
                limit,
                "plan",
                plan,
                "outcome",
                outcome);
    }

    /** A declared concurrency limit's slot counters, at zero until its first acquisition. */
    void declaredConcurrencyLimit(String limit) {
        for (String outcome : List.of("acquired", "refused", "unavailable", "error")) {
            slotCounter(limit, outcome);
        }
    }

    private void slots(String limit, String outcome) {
        slotCounter(limit, outcome).increment();
    }

    private Counter slotCounter(String limit, String outcome) {
        return counter(
                "ratelimit.concurrency",
                "Concurrency-limit slot acquisitions by limit name and outcome",
                "limit",
                limit,
                "outcome",
                outcome);
    }

    private Counter operatorChanges(String action) {
        return counter(
                "ratelimit.operator.changes",
                "Changes made for every instance: by operators, credits and resets, refreshes of the limits",
                "action",
                action);
    }

    /** A counter's name and its tags' values (at most three; tag keys are fixed by the name). */
    private record MeterKey(String name, @Nullable String first, @Nullable String second, @Nullable String third) {}

    /** A counter by its name and tags, kept once made; names and tags are declared ones, so the map stays small. */
    private Counter counter(String name, String description, String... tags) {
        MeterKey id = new MeterKey(
                name,
                tags.length > 1 ? tags[1] : null,
                tags.length > 3 ? tags[3] : null,
                tags.length > 5 ? tags[5] : null);
        Counter counter = counters.get(id);
        return counter != null
                ? counter
                : counters.computeIfAbsent(id, made -> Counter.builder(name)
                        .description(description)
                        .tags(tags)
                        .register(registry));
    }

    private DistributionSummary advice(String name, boolean staggered) {
        List<String> id = List.of(name, staggered ? "staggered" : "earliest");
        DistributionSummary summary = advice.get(id);
        return summary != null
                ? summary
                : advice.computeIfAbsent(id, made -> DistributionSummary.builder("ratelimit.retry.advice")
                        .description("Seconds refused calls were told to wait before retrying")
                        .baseUnit("seconds")
                        .tag("limit", name)
                        .tag("advice", staggered ? "staggered" : "earliest")
                        .register(registry));
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
