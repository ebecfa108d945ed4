package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;

/**
 * The give-back script on its own (a cluster sends it when one slot refused a call another admitted): it returns
 * exactly what one take took, once however often it is sent, and never into a later window or a refilled bucket.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GiveBackTest {

    RedissonClient client;
    RedisGuard guard = new RedisGuard(Duration.ofSeconds(5), 5, Duration.ofSeconds(1));
    RedisRateLimiter limiter;
    ScriptExecutor executor;
    RedisKeys keys = new RedisKeys("ratelimit:");

    @BeforeAll
    void start() {
        client = SharedRedis.get().newClient();
        limiter = new RedisRateLimiter(client, "ratelimit:", guard, 10, 0);
        executor = new ScriptExecutor(client, guard);
    }

    @AfterAll
    void stop() {
        client.shutdown();
    }

    /** Two takes of 2 units; the second one's give-back sent three times returns its 2 units once. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aGiveBackReturnsExactlyOneTakeHoweverOftenItIsSent(Algorithm algorithm) {
        RateLimit limit = RateLimit.of("giveback-" + algorithm, algorithm, 10, 3_600_000);
        String id = "user-" + UUID.randomUUID();
        take(limit, id, 2);
        Decision second = take(limit, id, 2);
        assertThat(remaining(limit, id)).isEqualTo(6);

        assertThat(giveBack(limit, id, second, 2, "call-1")).isEqualTo(1);
        assertThat(giveBack(limit, id, second, 2, "call-1")).isZero();
        assertThat(giveBack(limit, id, second, 2, "call-1")).isZero();

        assertThat(remaining(limit, id)).isEqualTo(8);
        // what stays counted is the first take: exactly 8 more are admitted
        int admitted = 0;
        while (take(limit, id, 1).allowed()) {
            admitted++;
        }
        assertThat(admitted).isEqualTo(8);
    }

    /** A sliding window's entries are taken out of the middle of the ring: later entries keep their times. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aGiveBackAfterLaterTakesReturnsOnlyItsOwnUnits(Algorithm algorithm) {
        RateLimit limit = RateLimit.of("giveback-mid-" + algorithm, algorithm, 10, 3_600_000);
        String id = "user-" + UUID.randomUUID();
        take(limit, id, 1);
        Decision middle = take(limit, id, 3);
        take(limit, id, 2);
        take(limit, id, 1);
        assertThat(remaining(limit, id)).isEqualTo(3);

        assertThat(giveBack(limit, id, middle, 3, "mid")).isEqualTo(1);

        assertThat(remaining(limit, id)).isEqualTo(6);
        int admitted = 0;
        while (take(limit, id, 1).allowed()) {
            admitted++;
        }
        assertThat(admitted).isEqualTo(6);
    }

    /**
     * A give-back that arrives after the window it took from has ended (or the bucket refilled past it) changes
     * nothing: it never makes room in the window that followed.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aLateGiveBackNeverMakesRoomInALaterWindow(Algorithm algorithm) {
        RateLimit limit = RateLimit.of("giveback-late-" + algorithm, algorithm, 2, 300);
        String id = "user-" + UUID.randomUUID();
        Decision early = take(limit, id, 1);
        awaitFull(limit, id);
        take(limit, id, 1);
        take(limit, id, 1);

        assertThat(giveBack(limit, id, early, 1, "late")).isZero();

        assertThat(remaining(limit, id)).isZero();
    }

    /**
     * A key of several windows: the give-back of a take in the middle of later ones, sent twice, returns its units once
     * to every window that counted them (here both), and exactly that many more calls are admitted.
     */
    @org.junit.jupiter.api.Test
    void aKeyOfSeveralWindowsGetsItsUnitsBackOnceInEveryWindow() {
        RateLimit hour = RateLimit.of("giveback-several", Algorithm.SLIDING_WINDOW, 6, 3_600_000);
        RateLimit day = RateLimit.of("giveback-several", Algorithm.SLIDING_WINDOW, 8, 86_400_000);
        String id = "user-" + UUID.randomUUID();
        takeBoth(hour, day, id, 1);
        Decision middle = takeBoth(hour, day, id, 2);
        takeBoth(hour, day, id, 1);
        assertThat(takeBoth(hour, day, id, 0).outcomes())
                .extracting(LimitOutcome::remaining)
                .containsExactly(2L, 4L);

        String key = keys.severalWindowsKey("giveback-several", RedisKeys.tag(id), List.of(hour, day));
        Object[] args = {middle.decidedAt().toEpochMilli(), 10_000, 4, 2, 0, 2, 0, 3_600_000, 86_400_000};
        List<Object> marked = List.of(RedisKeys.giveBackMarker(key, "several"), key);
        Object[] stringArgs = java.util.Arrays.stream(args).map(String::valueOf).toArray();
        assertThat(ScriptExecutor.number(executor.call(SlotGiveBacks.GIVE_BACK, marked, stringArgs)
                        .get(0)))
                .isEqualTo(1);
        assertThat(ScriptExecutor.number(executor.call(SlotGiveBacks.GIVE_BACK, marked, stringArgs)
                        .get(0)))
                .isZero();

        assertThat(takeBoth(hour, day, id, 0).outcomes())
                .extracting(LimitOutcome::remaining)
                .containsExactly(4L, 6L);
        int admitted = 0;
        while (takeBoth(hour, day, id, 1).allowed()) {
            admitted++;
        }
        assertThat(admitted).isEqualTo(4);
    }

    Decision takeBoth(RateLimit hour, RateLimit day, String id, int cost) {
        return limiter.tryAcquire(List.of(LimitRequest.of(hour, id, cost), LimitRequest.of(day, id, cost)));
    }

    Decision take(RateLimit limit, String id, int cost) {
        return limiter.tryAcquire(List.of(LimitRequest.of(limit, id, cost)));
    }

    long remaining(RateLimit limit, String id) {
        return take(limit, id, 0).remaining();
    }

    void awaitFull(RateLimit limit, String id) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (remaining(limit, id) < limit.limit()) {
            assertThat(System.nanoTime()).as("window over").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** Sends the give-back of one take as RedisRateLimiter does; returns how many keys it gave back. */
    long giveBack(RateLimit limit, String id, Decision take, int cost, String callId) {
        String key = keys.rateLimitKey(limit, RedisKeys.tag(id));
        List<Object> args = new ArrayList<>(List.of(
                take.decidedAt().toEpochMilli(),
                10_000,
                limit.algorithm().ordinal() + 1, // 1 sliding window, 2 fixed window, 3 token bucket
                limit.limit(),
                limit.windowMs(),
                cost,
                take.outcomes().get(0).resetAfter().toMillis()));
        List<Object> reply = executor.call(
                SlotGiveBacks.GIVE_BACK,
                List.of(RedisKeys.giveBackMarker(key, callId), key),
                args.stream().map(String::valueOf).toArray());
        return ScriptExecutor.number(reply.get(0));
    }
}
