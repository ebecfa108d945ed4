package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.CalendarPeriod;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.redis.internal.RedisKeys;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Calendar quotas, penalties and shared budgets with ceilings, on a single Redis and on a Redis Cluster alike: two
 * clients (two application instances), real threads. Calendar periods are crossed on Redis's clock as the scripts read
 * it, which the test stops before a boundary and moves across it ({@link TestClock}), never the JVM's: what a call is
 * told does not depend on how long the calls take.
 */
abstract class ProductLimitsContract extends TwoRateLimiters {

    static final ZoneId UTC = ZoneId.of("UTC");
    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    @AfterEach
    void realClock() {
        TestClock.real(clientA, instanceA, instanceB);
    }

    static Instant at(String localDateTime, ZoneId zone) {
        return LocalDateTime.parse(localDateTime).atZone(zone).toInstant();
    }

    static long until(Instant end, Decision decision) {
        return end.toEpochMilli() - decision.decidedAt().toEpochMilli();
    }

    /**
     * 3 calls a month in UTC, Redis's clock an hour before February ends: three calls on two instances are admitted and
     * told the month's end, the fourth is refused until exactly then; once Redis's clock is in March, the count starts
     * afresh and resets at April's start.
     */
    @Test
    void aMonthlyQuotaEndsAtTheMonthsEnd() {
        RateLimit limit = monthly("monthly-utc", 3, UTC);
        String id = fresh();
        Instant march = at("2027-03-01T00:00", UTC);
        redisClockAt(march.minus(Duration.ofHours(1)));

        for (int i = 0; i < 3; i++) {
            Decision admitted = acquire(i % 2 == 0 ? instanceA : instanceB, limit, id);
            assertThat(admitted.allowed()).isTrue();
            assertThat(admitted.outcomes().get(0).remaining()).isEqualTo(2 - i);
            assertThat(admitted.outcomes().get(0).resetAfter().toMillis()).isEqualTo(until(march, admitted));
        }
        Decision refused = acquire(instanceB, limit, id);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter().toMillis())
                .isEqualTo(until(march, refused))
                .isEqualTo(Duration.ofHours(1).toMillis());

        redisClockMovesTo(march, id);
        Decision inMarch = acquire(instanceA, limit, id);
        assertThat(inMarch.allowed()).isTrue();
        assertThat(inMarch.decidedAt()).isEqualTo(march);
        assertThat(inMarch.outcomes().get(0).remaining()).isEqualTo(2);
        assertThat(inMarch.outcomes().get(0).resetAfter().toMillis())
                .isEqualTo(until(at("2027-04-01T00:00", UTC), inMarch));
    }

    /**
     * A customer's monthly quota, on Redis's real clock: reading it says what was used and that the month ends at the
     * next month's start, and spends nothing; a credit of two on one instance lets the other, which refused a moment
     * ago, admit exactly two more this month.
     */
    @Test
    void aMonthlyQuotaIsReadAndCreditedForTheCurrentMonth() {
        RateLimit limit = monthly("monthly-usage", 3, UTC);
        List<io.github.ratelimit.core.LimitRequest> requests =
                List.of(io.github.ratelimit.core.LimitRequest.of(limit, fresh(), 1));
        for (int i = 0; i < 3; i++) {
            assertThat(instanceA.tryAcquire(requests).allowed()).isTrue();
        }
        assertThat(instanceB.tryAcquire(requests).allowed()).isFalse();

        io.github.ratelimit.core.Usage usage = instanceB.usage(requests);
        io.github.ratelimit.core.Usage.Window window = usage.windows().get(0);
        assertThat(window.used()).isEqualTo(3);
        assertThat(window.remaining()).isZero();
        assertThat(window.resetsAt())
                .isEqualTo(usage.readAt()
                        .atZone(UTC)
                        .toLocalDate()
                        .withDayOfMonth(1)
                        .plusMonths(1)
                        .atStartOfDay(UTC)
                        .toInstant());

        assertThat(instanceA.credit(requests, 2)).isEqualTo(2);

        assertThat(instanceB.usage(requests).windows().get(0).remaining()).isEqualTo(2);
        int admitted = 0;
        for (int i = 0; i < 3; i++) {
            admitted += instanceB.tryAcquire(requests).allowed() ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(2);
    }

    /** The example: a refusal at 23:59:30 local time on the last day of the month advises 30 s. */
    @Test
    void aRefusalThirtySecondsBeforeTheMonthEndsAdvisesThirtySeconds() {
        RateLimit limit = monthly("monthly-berlin", 1, BERLIN);
        String id = fresh();
        Instant end = at("2027-06-01T00:00", BERLIN);
        redisClockAt(at("2027-05-31T23:59:30", BERLIN));

        assertThat(acquire(instanceA, limit, id).allowed()).isTrue();
        Decision refused = acquire(instanceB, limit, id);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter().toMillis())
                .isEqualTo(until(end, refused))
                .isEqualTo(30_000L);
    }

    /** February 29th: a leap day is a day of its own, and a leap February's month ends after it. */
    @Test
    void februaryTheTwentyNinth() {
        RateLimit daily = RateLimit.of("daily-leap", Algorithm.FIXED_WINDOW, 1, 1)
                .inCalendar(new CalendarPeriod(CalendarPeriod.Unit.DAY, UTC));
        RateLimit monthly = monthly("monthly-leap", 5, UTC);
        String id = fresh();
        Instant leapDay = at("2028-02-29T00:00", UTC);
        redisClockAt(leapDay.minus(Duration.ofHours(1)));

        assertThat(acquire(instanceA, daily, id).allowed()).isTrue();
        Decision refused = acquire(instanceB, daily, id);
        assertThat(refused.retryAfter().toMillis()).isEqualTo(until(leapDay, refused));

        redisClockMovesTo(leapDay, id);
        Decision onLeapDay = acquire(instanceA, daily, id);
        assertThat(onLeapDay.allowed()).isTrue();
        assertThat(onLeapDay.outcomes().get(0).resetAfter().toMillis())
                .isEqualTo(until(at("2028-03-01T00:00", UTC), onLeapDay))
                .isEqualTo(Duration.ofHours(24).toMillis());
        Decision month = acquire(instanceA, monthly, id);
        assertThat(month.outcomes().get(0).resetAfter().toMillis())
                .isEqualTo(until(at("2028-03-01T00:00", UTC), month));
    }

    /** Daylight saving time starts: Berlin's 28 March 2027 has 23 hours. */
    @Test
    void aDayWhenClocksGoForwardHasTwentyThreeHours() {
        assertDayLength("2027-03-28", Duration.ofHours(23));
    }

    /** Daylight saving time ends: Berlin's 31 October 2027 has 25 hours. */
    @Test
    void aDayWhenClocksGoBackHasTwentyFiveHours() {
        assertDayLength("2027-10-31", Duration.ofHours(25));
    }

    private void assertDayLength(String day, Duration length) {
        RateLimit limit = RateLimit.of("daily-dst", Algorithm.FIXED_WINDOW, 1, 1)
                .inCalendar(new CalendarPeriod(CalendarPeriod.Unit.DAY, BERLIN));
        String id = fresh();
        Instant midnight = at(day + "T00:00", BERLIN);
        Instant next = at(LocalDateTime.parse(day + "T00:00").plusDays(1).toString(), BERLIN);
        assertThat(Duration.between(midnight, next)).isEqualTo(length);
        redisClockAt(midnight.minus(Duration.ofHours(1)));

        assertThat(acquire(instanceA, limit, id).allowed()).isTrue();
        assertThat(acquire(instanceB, limit, id).allowed()).isFalse();
        redisClockMovesTo(midnight, id);
        Decision onTheDay = acquire(instanceA, limit, id);

        assertThat(onTheDay.allowed()).isTrue();
        assertThat(onTheDay.decidedAt()).isEqualTo(midnight);
        assertThat(onTheDay.outcomes().get(0).resetAfter().toMillis())
                .isEqualTo(until(next, onTheDay))
                .isEqualTo(length.toMillis());
        Decision refused = acquire(instanceB, limit, id);
        assertThat(refused.retryAfter().toMillis()).isEqualTo(until(next, refused));
    }

    /** An operator's new quota for the current period keeps what was used in it. */
    @Test
    void aNewQuotaKeepsWhatThePeriodUsed() {
        RateLimit limit = monthly("monthly-override", 3, UTC);
        String id = fresh();
        for (int i = 0; i < 3; i++) {
            assertThat(acquire(instanceA, limit, id).allowed()).isTrue();
        }
        assertThat(acquire(instanceA, limit, id).allowed()).isFalse();
        RateLimit raised = limit.withQuota(5, limit.window());

        Decision more = acquire(instanceB, raised, id);

        assertThat(more.allowed()).isTrue();
        assertThat(more.outcomes().get(0).remaining()).isEqualTo(1);
    }

    static RateLimit monthly(String name, long quota, ZoneId zone) {
        return RateLimit.of(name, Algorithm.FIXED_WINDOW, quota, 1)
                .inCalendar(new CalendarPeriod(CalendarPeriod.Unit.MONTH, zone));
    }

    /**
     * 2 calls a minute with a penalty of 1.5 s, on Redis's clock stopped at a moment: the third call, on the other
     * instance, is refused for exactly the penalty; both instances refuse within it, told the time left; with Redis's
     * clock moved on by the penalty, the client starts afresh (1 of 2 left after its first call), though the minute has
     * not passed.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aPenaltyHoldsOnEveryInstanceAndEndsOnTime(Algorithm algorithm) {
        RateLimit limit =
                RateLimit.of("penalty-" + algorithm, algorithm, 2, 60_000).withPenalty(Duration.ofMillis(1_500));
        String id = fresh();
        Instant start = Instant.ofEpochMilli(RedisCommands.timeMs(clientA));
        redisClockAt(start);
        assertThat(acquire(instanceA, limit, id).allowed()).isTrue();
        assertThat(acquire(instanceA, limit, id).allowed()).isTrue();

        Decision boxed = acquire(instanceB, limit, id);
        assertThat(boxed.allowed()).isFalse();
        assertThat(boxed.retryAfter()).isEqualTo(Duration.ofMillis(1_500));
        Decision inTheBox = acquire(instanceA, limit, id);
        assertThat(inTheBox.allowed()).isFalse();
        assertThat(inTheBox.retryAfter()).isEqualTo(Duration.ofMillis(1_500));

        redisClockMovesTo(start.plusMillis(1_500), id);
        Decision out = acquire(instanceB, limit, id);
        assertThat(out.allowed()).isTrue();
        assertThat(out.outcomes().get(0).remaining()).isEqualTo(1);
    }

    /** A penalty is the limit's: another client, and the same client under another limit, are not in the box. */
    @Test
    void aPenaltyBoxesOneClientOfOneLimit() {
        RateLimit limit =
                RateLimit.of("penalty-one", Algorithm.SLIDING_WINDOW, 1, 60_000).withPenalty(Duration.ofMinutes(1));
        RateLimit other = RateLimit.of("penalty-other", Algorithm.SLIDING_WINDOW, 1, 60_000);
        String id = fresh();
        acquire(instanceA, limit, id);
        assertThat(acquire(instanceA, limit, id).allowed()).isFalse();

        assertThat(acquire(instanceB, limit, fresh()).allowed()).isTrue();
        assertThat(acquire(instanceB, other, id).allowed()).isTrue();
    }

    /**
     * Operators see a box in force from any instance (scanned on every master of a Cluster), named by the limit's key
     * and the identifier's hash, with its time left; lifting it lets the client in at once, afresh.
     */
    @Test
    void aPenaltyIsListedAndLifted() {
        RateLimit limit = RateLimit.of("penalty-listed", Algorithm.FIXED_WINDOW, 1, 60_000)
                .withPenalty(Duration.ofMinutes(1));
        String id = fresh();
        assertThat(acquire(instanceA, limit, id).allowed()).isTrue();
        assertThat(acquire(instanceA, limit, id).allowed()).isFalse();
        String tag = RedisKeys.tag(ClientIdentifier.of(id));

        assertThat(instanceB.penalties(1_000))
                .filteredOn(penalty -> penalty.client().equals(tag))
                .singleElement()
                .satisfies(penalty -> {
                    assertThat(penalty.limit()).startsWith("penalty-listed:");
                    assertThat(penalty.left()).isBetween(Duration.ofMillis(1), Duration.ofMinutes(1));
                });
        assertThat(instanceB.liftPenalty(limit, ClientIdentifier.of(id))).isTrue();
        assertThat(instanceB.penalties(1_000))
                .noneMatch(penalty -> penalty.client().equals(tag));
        Decision afresh = acquire(instanceB, limit, id);
        assertThat(afresh.allowed()).isTrue();
        assertThat(afresh.outcomes().get(0).remaining()).isZero();
        assertThat(instanceB.liftPenalty(limit, ClientIdentifier.of(id)))
                .as("none left")
                .isFalse();
    }

    /**
     * One budget of 10 for everyone, two ceilings: 60 non-critical calls (share 0.6) and 60 critical ones (share 1.0)
     * at once on 64 threads and two instances admit exactly 10 in all, at most 6 of them non-critical; so critical calls
     * got at least the 4 kept for them.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aSharedBudgetKeepsTheRestForTheLargerShareUnderConcurrency(Algorithm algorithm) throws Exception {
        RateLimit budget = RateLimit.of("fleet-" + algorithm, algorithm, 10, 3_600_000);
        RateLimit bulk = budget.withShare(0.6);
        RateLimit critical = budget.withShare(1.0);
        AtomicInteger bulkAdmitted = new AtomicInteger();
        AtomicInteger criticalAdmitted = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(64);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 120; i++) {
                boolean isBulk = i % 2 == 0;
                RedisRateLimiter instance = i % 4 < 2 ? instanceA : instanceB;
                calls.add(pool.submit(() -> {
                    go.await();
                    if (acquire(instance, isBulk ? bulk : critical, "everyone").allowed()) {
                        (isBulk ? bulkAdmitted : criticalAdmitted).incrementAndGet();
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> call : calls) {
                call.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(bulkAdmitted.get() + criticalAdmitted.get()).isEqualTo(10);
        assertThat(bulkAdmitted.get()).isLessThanOrEqualTo(6);
        assertThat(criticalAdmitted.get()).isGreaterThanOrEqualTo(4);
    }

    /**
     * One after another: 20 non-critical calls admit exactly 6, each told its own ceiling's remaining; critical calls
     * then admit exactly 4 more.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void nonCriticalCallsStopAtTheirCeilingAndCriticalOnesGetTheRest(Algorithm algorithm) {
        RateLimit budget = RateLimit.of("fleet-seq-" + algorithm, algorithm, 10, 3_600_000);
        String id = fresh();
        int bulk = 0;
        for (int i = 0; i < 20; i++) {
            Decision decision = acquire(i % 2 == 0 ? instanceA : instanceB, budget.withShare(0.6), id);
            if (decision.allowed()) {
                assertThat(decision.outcomes().get(0).remaining()).isEqualTo(6 - ++bulk);
            }
        }
        int critical = 0;
        for (int i = 0; i < 20; i++) {
            if (acquire(i % 2 == 0 ? instanceB : instanceA, budget, id).allowed()) {
                critical++;
            }
        }
        assertThat(bulk).isEqualTo(6);
        assertThat(critical).isEqualTo(4);
    }
}
