package io.github.ratelimit.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The limiter in the JVM: exact under concurrency for each algorithm, all or nothing per call, its windows on time. */
class LocalRateLimiterTest {

    private static final int THREADS = 32;

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void admitsExactlyTheLimitUnder32Threads(Algorithm algorithm) throws Exception {
        LocalRateLimiter limiter = new LocalRateLimiter(10_000);
        RateLimit limit =
                RateLimit.of("exact-" + algorithm.name().toLowerCase().replace('_', '-'), algorithm, 1_000, 600_000);
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> admitted = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            admitted.add(threads.submit(() -> {
                go.await();
                int mine = 0;
                for (int i = 0; i < 100; i++) {
                    if (limiter.tryAcquire(List.of(LimitRequest.of(limit, "one-client", 1)))
                            .allowed()) {
                        mine++;
                    }
                }
                return mine;
            }));
        }
        go.countDown();
        int total = 0;
        for (Future<Integer> each : admitted) {
            total += each.get(30, TimeUnit.SECONDS);
        }
        threads.shutdown();
        assertThat(total).isEqualTo(1_000);
    }

    @Test
    void aCallIsAdmittedByAllItsLimitsOrTakesNothing() throws Exception {
        LocalRateLimiter limiter = new LocalRateLimiter(10_000);
        RateLimit wide = RateLimit.of("wide", Algorithm.SLIDING_WINDOW, 100, 600_000);
        RateLimit narrow = RateLimit.of("narrow", Algorithm.FIXED_WINDOW, 30, 600_000);
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            done.add(threads.submit(() -> {
                go.await();
                for (int i = 0; i < 10; i++) {
                    limiter.tryAcquire(
                            List.of(LimitRequest.of(wide, "client", 1), LimitRequest.of(narrow, "client", 1)));
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> each : done) {
            each.get(30, TimeUnit.SECONDS);
        }
        threads.shutdown();
        Decision wideAlone =
                limiter.tryAcquire(List.of(LimitRequest.of(wide, "client", 1).checkingOnly()));
        assertThat(wideAlone.remaining())
                .as("the wide limit took only what the narrow one admitted")
                .isEqualTo(70);
    }

    @Test
    void slidingWindowFreesEachUnitAWindowAfterItWasTaken() {
        AtomicLong now = new AtomicLong(1_000_000_000L);
        LocalRateLimiter limiter = new LocalRateLimiter(100, now::get);
        RateLimit limit = RateLimit.of("sliding", Algorithm.SLIDING_WINDOW, 2, 1_000);
        assertThat(call(limiter, limit).allowed()).isTrue();
        now.addAndGet(ms(400));
        assertThat(call(limiter, limit).allowed()).isTrue();
        Decision refused = call(limiter, limit);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(600));
        now.addAndGet(ms(600));
        assertThat(call(limiter, limit).allowed()).as("the first unit left").isTrue();
        assertThat(call(limiter, limit).allowed()).isFalse();
    }

    /**
     * A quota that changes (an operator's override, a refresh) keeps what was counted: the memory store is where the
     * counts are, so forgetting them would give every client a fresh budget; {@code forgetLocalState} (tests) does.
     */
    @Test
    void aChangedQuotaKeepsWhatWasCountedAndOnlyForgettingClearsIt() {
        LocalRateLimiter limiter = new LocalRateLimiter(100);
        RateLimit three = RateLimit.of("usage", Algorithm.SLIDING_WINDOW, 3, 600_000);
        RateLimit five = three.withQuota(5, three.window());
        for (int i = 0; i < 3; i++) {
            assertThat(call(limiter, three).allowed()).isTrue();
        }
        assertThat(call(limiter, three).allowed()).isFalse();

        limiter.quotasChanged();
        assertThat(call(limiter, five).allowed()).as("4th of 5").isTrue();
        assertThat(call(limiter, five).allowed()).as("5th of 5").isTrue();
        assertThat(call(limiter, five).allowed()).as("6th of 5").isFalse();
        assertThat(call(limiter, three).allowed()).as("back to 3: 5 used").isFalse();

        limiter.forgetLocalState();
        assertThat(call(limiter, three).allowed()).as("all forgotten").isTrue();
    }

    @Test
    void fixedWindowStartsWithItsFirstCallAndEndsAWindowLater() {
        AtomicLong now = new AtomicLong(5_000_000_000L);
        LocalRateLimiter limiter = new LocalRateLimiter(100, now::get);
        RateLimit limit = RateLimit.of("fixed", Algorithm.FIXED_WINDOW, 2, 1_000);
        assertThat(call(limiter, limit).allowed()).isTrue();
        now.addAndGet(ms(900));
        assertThat(call(limiter, limit).allowed()).isTrue();
        Decision refused = call(limiter, limit);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(100));
        now.addAndGet(ms(100));
        assertThat(call(limiter, limit).allowed()).isTrue();
        assertThat(call(limiter, limit).allowed()).isTrue();
        assertThat(call(limiter, limit).allowed()).isFalse();
    }

    /**
     * A calendar quota in memory keeps its calendar: three a month, the fourth refused until the next month starts
     * (by this machine's clock, read around the call), not a month's longest window from the first call.
     */
    @Test
    void aCalendarQuotaEndsAtTheStartOfTheNextPeriod() {
        LocalRateLimiter limiter = new LocalRateLimiter(100);
        RateLimit monthly = RateLimit.of("monthly", Algorithm.FIXED_WINDOW, 3, 60_000)
                .inCalendar(
                        io.github.ratelimit.core.CalendarPeriod.of(io.github.ratelimit.core.CalendarPeriod.Unit.MONTH));
        for (int i = 0; i < 3; i++) {
            assertThat(call(limiter, monthly).allowed()).isTrue();
        }
        java.time.Instant before = java.time.Instant.now();
        Decision refused = call(limiter, monthly);
        java.time.Instant after = java.time.Instant.now();

        assertThat(refused.allowed()).isFalse();
        java.time.Instant nextMonth = java.time.ZonedDateTime.ofInstant(after, java.time.ZoneOffset.UTC)
                .toLocalDate()
                .withDayOfMonth(1)
                .plusMonths(1)
                .atStartOfDay(java.time.ZoneOffset.UTC)
                .toInstant();
        assertThat(refused.retryAfter())
                .isBetween(
                        java.time.Duration.between(after, nextMonth).minusSeconds(1),
                        java.time.Duration.between(before, nextMonth).plusSeconds(1));
    }

    @Test
    void tokenBucketRefillsOneUnitPerIntervalUpToTheLimit() {
        AtomicLong now = new AtomicLong(-7_000_000_000L);
        LocalRateLimiter limiter = new LocalRateLimiter(100, now::get);
        RateLimit limit = RateLimit.of("bucket", Algorithm.TOKEN_BUCKET, 4, 1_000);
        for (int i = 0; i < 4; i++) {
            assertThat(call(limiter, limit).allowed()).isTrue();
        }
        Decision refused = call(limiter, limit);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(250));
        now.addAndGet(ms(250));
        assertThat(call(limiter, limit).allowed()).isTrue();
        assertThat(call(limiter, limit).allowed()).isFalse();
        now.addAndGet(ms(10_000));
        for (int i = 0; i < 4; i++) {
            assertThat(call(limiter, limit).allowed())
                    .as("a full bucket holds the limit")
                    .isTrue();
        }
        assertThat(call(limiter, limit).allowed()).isFalse();
    }

    @Test
    void keepsAtMostMaxEntriesPairs() {
        LocalRateLimiter limiter = new LocalRateLimiter(50);
        RateLimit limit = RateLimit.of("bounded", Algorithm.SLIDING_WINDOW, 5, 600_000);
        for (int i = 0; i < 1_000; i++) {
            limiter.tryAcquire(List.of(LimitRequest.of(limit, "client-" + i, 1)));
        }
        assertThat(limiter.size()).isLessThanOrEqualTo(50);
    }

    private static Decision call(LocalRateLimiter limiter, RateLimit limit) {
        return limiter.tryAcquire(List.of(LimitRequest.of(limit, "client", 1)));
    }

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }
}
