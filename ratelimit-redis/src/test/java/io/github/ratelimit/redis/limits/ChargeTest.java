package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.RedisGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;

/**
 * Costs known only after the call ({@code RateLimiter.chargeAsync}) on a real Redis, per algorithm: a call is admitted
 * while the budget has anything left, the charge may take it past zero, and then calls are refused; charges from many
 * threads on two clients add up exactly.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChargeTest {

    /** Long enough that nothing refills or leaves the window while a test runs. */
    private static final long LONG_WINDOW_MS = TimeUnit.HOURS.toMillis(1_000);

    RedissonClient clientOne;
    RedissonClient clientTwo;
    RedisRateLimiter one;
    RedisRateLimiter two;

    @BeforeAll
    void start() {
        clientOne = SharedRedis.get().newClient();
        clientTwo = SharedRedis.get().newClient();
        one = new RedisRateLimiter(clientOne, "ratelimit:", guard(), 10, 0);
        two = new RedisRateLimiter(clientTwo, "ratelimit:", guard(), 10, 0);
    }

    private static RedisGuard guard() {
        return new RedisGuard(Duration.ofSeconds(5), 5, Duration.ofSeconds(1));
    }

    @AfterAll
    void stop() {
        clientOne.shutdown();
        clientTwo.shutdown();
    }

    /** 1,000 units, 300 charged per call: four calls are admitted (the fourth with 100 left), the fifth refused. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void callsAreAdmittedWhileAnythingIsLeftAndTheChargeGoesPastZero(Algorithm algorithm) {
        RateLimit limit = RateLimit.of("charge-" + UUID.randomUUID(), algorithm, 1_000, LONG_WINDOW_MS);
        List<LimitRequest> check = List.of(LimitRequest.of(limit, "user", 1).checkingOnly());
        List<Boolean> admitted = new ArrayList<>();
        for (int call = 0; call < 5; call++) {
            Decision decision = one.tryAcquire(check);
            admitted.add(decision.allowed());
            if (decision.allowed()) {
                one.chargeAsync(check, 300).toCompletableFuture().join();
            }
        }
        assertThat(admitted).containsExactly(true, true, true, true, false);
        assertThat(one.tryAcquire(check).remaining()).isZero();
    }

    /** 32 threads on two clients charge 1 unit 20 times each: exactly 640 units are used. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void chargesFromManyThreadsOnTwoInstancesAddUpExactly(Algorithm algorithm) throws Exception {
        RateLimit limit = RateLimit.of("charge-many-" + UUID.randomUUID(), algorithm, 10_000, LONG_WINDOW_MS);
        List<LimitRequest> check = List.of(LimitRequest.of(limit, "user", 1).checkingOnly());
        ExecutorService threads = Executors.newFixedThreadPool(32);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 32; t++) {
                RedisRateLimiter instance = t % 2 == 0 ? one : two;
                done.add(threads.submit(() -> {
                    go.await();
                    for (int i = 0; i < 20; i++) {
                        instance.chargeAsync(check, 1).toCompletableFuture().join();
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> charge : done) {
                charge.get(30, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(one.tryAcquire(check).remaining()).isEqualTo(10_000 - 640);
    }

    /**
     * A sliding window of 5 per second charged 7: refused until a window after the charge (the 7 units were all used
     * then), and whole again after it.
     */
    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = "SLIDING_WINDOW")
    void aSlidingWindowChargedPastItsLimitRefusesForOneWindowFromTheCharge(Algorithm algorithm) throws Exception {
        RateLimit limit = RateLimit.of("charge-window-" + UUID.randomUUID(), algorithm, 5, 1_000);
        List<LimitRequest> check = List.of(LimitRequest.of(limit, "user", 1).checkingOnly());
        one.tryAcquire(List.of(LimitRequest.of(limit, "user", 2)));
        one.chargeAsync(check, 7).toCompletableFuture().join();

        Decision refused = one.tryAcquire(check);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).isBetween(Duration.ofMillis(500), Duration.ofMillis(1_000));

        Thread.sleep(refused.retryAfter().toMillis() + 5); // the advice itself: nothing to poll
        assertThat(one.tryAcquire(check).remaining()).isEqualTo(5);
    }

    /**
     * Two sliding windows of one name and identifier, counted in one key by a decision: a charge reaches that key, so
     * that the next decision counts it, in each window.
     */
    @Test
    void aChargeToWindowsOfOneNameIsCountedByTheirDecision() {
        String name = "charge-several-" + UUID.randomUUID();
        RateLimit perSecond = RateLimit.of(name, Algorithm.SLIDING_WINDOW, 5, LONG_WINDOW_MS / 2);
        RateLimit perHour = RateLimit.of(name, Algorithm.SLIDING_WINDOW, 100, LONG_WINDOW_MS);
        List<LimitRequest> call = List.of(LimitRequest.of(perSecond, "user", 1), LimitRequest.of(perHour, "user", 1));
        assertThat(one.tryAcquire(call).allowed()).isTrue();

        one.chargeAsync(call, 3).toCompletableFuture().join();

        Decision next = two.tryAcquire(call);
        assertThat(next.allowed()).isTrue();
        assertThat(next.remaining()).isEqualTo(5 - 1 - 3 - 1);
        two.chargeAsync(call, 10).toCompletableFuture().join();
        Decision refused = one.tryAcquire(call);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.remaining()).isNotPositive();
    }

    /** A charge to a limit Redis cannot count fails its future, naming the limit; nothing is sent. */
    @Test
    void aChargeToALimitRedisCannotCountFailsNamingIt() {
        RateLimit huge = RateLimit.of(
                "charge-huge", Algorithm.SLIDING_WINDOW, RateLimitScriptCodec.MAX_SLIDING_LIMIT + 1, LONG_WINDOW_MS);

        var charged = one.chargeAsync(List.of(LimitRequest.of(huge, "user", 1)), 5);

        assertThat(charged)
                .failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(IllegalArgumentException.class)
                .withMessageContaining("charge-huge");
    }
}
