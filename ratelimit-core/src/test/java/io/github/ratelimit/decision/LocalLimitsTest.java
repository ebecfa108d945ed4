package io.github.ratelimit.decision;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RedisUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Local limits across a Redis that comes and goes: the instance's share (5 on two instances: 2) is used up once, not
 * once per return of Redis, while the window lasts.
 */
class LocalLimitsTest {

    private static final RedisUnavailableException GONE =
            new RedisUnavailableException("Redis did not answer within 200 ms", Duration.ofSeconds(1), null);

    @Test
    void aRedisThatComesAndGoesDoesNotGiveAFreshLocalShareEachTime() {
        LocalLimits local = new LocalLimits(100, () -> 2);
        RateLimit limit = RateLimit.of("flapping", Algorithm.SLIDING_WINDOW, 5, 60_000);
        List<LimitRequest> call = List.of(LimitRequest.of(limit, "client", 1));
        List<Boolean> admitted = new ArrayList<>();
        for (int flip = 0; flip < 3; flip++) {
            for (int i = 0; i < 2; i++) {
                admitted.add(local.decide("flapping", call, GONE).allowed());
            }
            local.redisDecides(); // Redis answered one call in between
        }
        assertThat(admitted).containsExactly(true, true, false, false, false, false);
    }

    /**
     * The count the recovery line tells is the count decided in memory: every call of an outage once, including those
     * decided while Redis returns on another thread (an outage was once reported as "0 call(s)" after calls were
     * decided in memory). Four threads decide while a fifth lets Redis decide now and then; what the lines tell adds
     * up to the calls made.
     */
    @Test
    void theCallsToldAtRecoveryAreTheCallsDecidedInMemory() throws Exception {
        LocalLimits local = new LocalLimits(10_000, () -> 1);
        RateLimit limit = RateLimit.of("told", Algorithm.SLIDING_WINDOW, 1_000_000, 60_000);
        List<LimitRequest> call = List.of(LimitRequest.of(limit, "client", 1));
        for (int i = 0; i < 3; i++) {
            local.decide("told", call, GONE);
        }
        assertThat(local.redisDecides()).isEqualTo(3);
        assertThat(local.redisDecides()).as("no outage since").isEqualTo(-1);

        int threads = 4;
        int each = 20_000;
        java.util.concurrent.atomic.AtomicLong told = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(threads);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads + 1);
        try {
            for (int t = 0; t < threads; t++) {
                pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        local.decide("told", call, GONE);
                    }
                    done.countDown();
                });
            }
            java.util.concurrent.Future<?> recoveries = pool.submit(() -> {
                while (done.getCount() > 0) {
                    told.addAndGet(Math.max(0, local.redisDecides()));
                }
            });
            assertThat(done.await(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            recoveries.get(60, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        told.addAndGet(Math.max(0, local.redisDecides()));
        assertThat(told.get()).isEqualTo((long) threads * each);
    }

    /**
     * Regression: a monthly quota decided in memory told a client to come back in 31 days during a 30-second outage.
     * Advice from memory goes no further than the time until Redis is asked again (the cause's), for every limit.
     */
    @Test
    void adviceFromMemoryGoesNoFurtherThanTheTimeUntilRedisIsAskedAgain() {
        LocalLimits local = new LocalLimits(100, () -> 1);
        RateLimit monthly = RateLimit.of("monthly", Algorithm.FIXED_WINDOW, 1, 60_000)
                .inCalendar(
                        io.github.ratelimit.core.CalendarPeriod.of(io.github.ratelimit.core.CalendarPeriod.Unit.MONTH));
        RateLimit hourly = RateLimit.of("hourly", Algorithm.SLIDING_WINDOW, 1, 3_600_000);
        List<LimitRequest> call = List.of(LimitRequest.of(monthly, "client", 1), LimitRequest.of(hourly, "client", 1));

        io.github.ratelimit.core.Decision admitted = local.decide("quota", call, GONE);
        io.github.ratelimit.core.Decision refused = local.decide("quota", call, GONE);

        assertThat(admitted.allowed()).isTrue();
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).isPositive().isLessThanOrEqualTo(GONE.retryAfter());
        for (io.github.ratelimit.core.Decision decision : List.of(admitted, refused)) {
            assertThat(decision.outcomes()).allSatisfy(outcome -> {
                assertThat(outcome.resetAfter()).isLessThanOrEqualTo(GONE.retryAfter());
                assertThat(outcome.retryAfter()).isLessThanOrEqualTo(GONE.retryAfter());
            });
        }
        // what memory counted still holds: the quota is not given afresh when the advice runs out
        assertThat(local.decide("quota", call, GONE).allowed()).isFalse();
    }
}
