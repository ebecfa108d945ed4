package io.github.ratelimit.redis.limits;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.test.support.RedisTopology;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

/** Two application instances, each with its own Redis client and rate limiter, on one Redis or one Cluster. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class TwoRateLimiters {

    RedissonClient clientA;
    RedissonClient clientB;
    RedisRateLimiter instanceA;
    RedisRateLimiter instanceB;

    /** Where the tests run. */
    abstract RedisTopology topology();

    @BeforeAll
    void start() {
        clientA = topology().newClient();
        clientB = topology().newClient();
        instanceA = new RedisRateLimiter(clientA, "ratelimit:", patient());
        instanceB = new RedisRateLimiter(clientB, "ratelimit:", patient());
    }

    private static RedisGuard patient() {
        return new RedisGuard(Duration.ofSeconds(5), 5, Duration.ofSeconds(1));
    }

    @AfterAll
    void stop() {
        clientA.shutdown();
        clientB.shutdown();
    }

    /** Where the test stopped Redis's clock (see {@link #redisClockAt}). */
    private Instant stopped = Instant.EPOCH;

    /**
     * Both instances read Redis's clock as {@code at}, standing still there until the test moves it (see
     * {@link TestClock}); {@link TestClock#real} gives them Redis's own clock again.
     */
    void redisClockAt(Instant at) {
        TestClock.stopAt(at, instanceA, instanceB);
        stopped = at;
    }

    /** Redis's clock moved on to {@code at}: the keys of client {@code id} live as much less (see TestClock). */
    void redisClockMovesTo(Instant at, String id) {
        TestClock.moveKeys(clientA, id, at.toEpochMilli() - stopped.toEpochMilli());
        redisClockAt(at);
    }

    static String fresh() {
        return "user-" + UUID.randomUUID();
    }

    static Decision acquire(RedisRateLimiter limiter, RateLimit limit, String id) {
        return limiter.tryAcquire(List.of(LimitRequest.of(limit, id, 1)));
    }
}
