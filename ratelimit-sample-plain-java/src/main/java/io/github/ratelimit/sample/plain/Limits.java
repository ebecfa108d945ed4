package io.github.ratelimit.sample.plain;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.decision.RateLimitDecisions.Call;
import io.github.ratelimit.decision.RateLimitDecisions.Outcome;
import io.github.ratelimit.redis.RedisConnector;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The limiter from plain Java: only ratelimit-redis (and Redisson) on the class path. */
public final class Limits implements AutoCloseable {

    static final List<RateLimit> SEARCH = List.of(
            RateLimit.of("search", Algorithm.SLIDING_WINDOW, 10, 1_000),
            RateLimit.of("search", Algorithm.SLIDING_WINDOW, 120, 60_000),
            RateLimit.of("search", Algorithm.SLIDING_WINDOW, 240, 3_600_000));

    private final RedissonClient redisson;
    private final RedisConnector connector;
    private final RateLimitDecisions decisions;
    private final RedisSingleUseTokens tokens;
    private final RedisLockManager locks;

    public Limits(String redisUrl) {
        Config config = new Config();
        config.setLazyInitialization(true); // the connector connects: Redis down never fails the constructor
        config.useSingleServer().setAddress(redisUrl);
        redisson = Redisson.create(config);
        RedisGuard guard = RedisGuard.defaults(); // 200 ms per call, a circuit breaker
        connector = new RedisConnector(redisson, guard, Duration.ofSeconds(3), Duration.ofSeconds(1), List.of());
        connector.start(); // connects in the background, and retries while Redis is down
        connector.awaitFirstAttempt(Duration.ofSeconds(3)); // ready when Redis is: waits at most 3 s
        // the one decision flow: while Redis cannot decide, this instance's memory does (failure mode local)
        decisions = RateLimitDecisions.of(new RedisRateLimiter(redisson, "ratelimit:", guard));
        tokens = new RedisSingleUseTokens(redisson, "ratelimit:", guard);
        locks = new RedisLockManager(redisson, "ratelimit:", guard);
    }

    /**
     * 10/s + 120/min + 240/h per IP and per user: six counters, one round trip, all or nothing. The outcome's
     * {@code refusal()} is null when the call may go on, else the exception to answer it with (429 or 503).
     */
    public Outcome search(String ip, String user) {
        List<LimitRequest> requests = new ArrayList<>();
        for (RateLimit limit : SEARCH) {
            requests.add(LimitRequest.of(limit, ClientIdentifier.of("ip", ip), 1));
            requests.add(LimitRequest.of(limit, ClientIdentifier.of("user", user), 1));
        }
        return decisions.decide(CallerContext.NONE, caller -> Call.of("search", requests, Set.of()));
    }

    /**
     * Waits until Redis answers, at most {@code within}: a program whose first calls must be decided by Redis calls it
     * first (a first connection can take many seconds on a busy machine). Until Redis answers, limits are decided in
     * memory, and tokens and locks throw {@code RedisUnavailableException}: answer 503, or try again later.
     */
    public boolean awaitRedis(Duration within) {
        return connector.awaitConnected(within);
    }

    public SingleUseTokens tokens() {
        return tokens;
    }

    public LockManager locks() {
        return locks;
    }

    @Override
    public void close() {
        locks.close();
        connector.close(); // waits for an attempt to connect under way, so the shutdown below finds none
        redisson.shutdown(0, 2, TimeUnit.SECONDS); // nothing of ours is in flight: no quiet period
    }
}
