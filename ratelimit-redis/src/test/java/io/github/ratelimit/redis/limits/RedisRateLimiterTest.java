package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.test.support.RedisProcess;
import io.github.ratelimit.test.support.RedisTopology;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** The rate limiter on a single Redis, plus what only a single server shows (command counts, a restart). */
public class RedisRateLimiterTest extends RateLimiterContract {

    @Override
    RedisTopology topology() {
        return SharedRedis.get();
    }

    /** Three limits for two identifiers: one EVALSHA, nothing else, per decision. */
    @Test
    void multiLimitMultiIdentifierDecisionIsOneScriptCall() {
        List<RateLimit> limits = List.of(
                RateLimit.of("search", Algorithm.SLIDING_WINDOW, 10, 1_000),
                RateLimit.of("search", Algorithm.SLIDING_WINDOW, 120, 60_000),
                RateLimit.of("search", Algorithm.SLIDING_WINDOW, 240, 3_600_000));
        List<LimitRequest> requests = new ArrayList<>();
        for (String id : List.of("ip:10.0.0.1-" + fresh(), "user:" + fresh())) {
            for (RateLimit limit : limits) {
                requests.add(LimitRequest.of(limit, id, 1));
            }
        }
        instanceA.tryAcquire(requests); // the script is cached from here on
        long evalshaBefore = RedisCommands.commandCalls(clientA, "evalsha");
        long evalBefore = RedisCommands.commandCalls(clientA, "eval");
        long getrangeBefore = RedisCommands.commandCalls(clientA, "getrange");

        Decision decision = instanceA.tryAcquire(requests);

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.outcomes()).hasSize(6);
        assertThat(RedisCommands.commandCalls(clientA, "evalsha") - evalshaBefore)
                .isEqualTo(1);
        assertThat(RedisCommands.commandCalls(clientA, "eval") - evalBefore).isZero();
        assertThat(RedisCommands.commandCalls(clientA, "getrange") - getrangeBefore)
                .isPositive();
    }

    /**
     * A lone decision of one sliding window runs four commands (TIME, GETRANGE of the header, SETRANGE of its entry and
     * of the header); the key's expiry is renewed by the first admission and then once an eighth of the window has
     * passed, not by each one.
     */
    @Test
    void aLoneDecisionOfOneSlidingWindowRunsFourCommands() {
        RateLimit hour = RateLimit.of("lone-" + fresh(), Algorithm.SLIDING_WINDOW, 100, 3_600_000);
        List<LimitRequest> call = List.of(LimitRequest.of(hour, "user", 1));
        instanceA.tryAcquire(call); // the script is cached and the key's expiry set from here on
        List<String> commands = List.of("time", "getrange", "setrange", "pexpire");
        long[] before = new long[commands.size()];
        for (int c = 0; c < commands.size(); c++) {
            before[c] = RedisCommands.commandCalls(clientA, commands.get(c));
        }

        for (int i = 0; i < 10; i++) {
            assertThat(instanceA.tryAcquire(call).allowed()).isTrue();
        }

        long[] per = new long[commands.size()];
        for (int c = 0; c < commands.size(); c++) {
            per[c] = RedisCommands.commandCalls(clientA, commands.get(c)) - before[c];
        }
        assertThat(per).as("time, getrange, setrange, pexpire in 10 decisions").containsExactly(10, 10, 20, 0);
    }

    /** A sliding window Redis cannot count (its ring's capacity is 3 bytes) is refused, naming the limit. */
    @Test
    void aSlidingWindowBeyondWhatRedisCountsIsRefusedByName() {
        RateLimit huge =
                RateLimit.of("huge", Algorithm.SLIDING_WINDOW, RateLimitScriptCodec.MAX_SLIDING_LIMIT + 1, 1_000);

        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> instanceA.tryAcquire(List.of(LimitRequest.of(huge, "user", 1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit 'huge'")
                .hasMessageContaining("16777215");
        assertThat(instanceA
                        .tryAcquire(List.of(LimitRequest.of(
                                RateLimit.of(
                                        "huge",
                                        Algorithm.SLIDING_WINDOW,
                                        RateLimitScriptCodec.MAX_SLIDING_LIMIT,
                                        1_000),
                                "user",
                                1)))
                        .allowed())
                .isTrue();
    }

    @Test
    void recoversFromARedisRestartThatForgotTheScript() {
        try (RedisProcess own = RedisProcess.start()) {
            RedissonClient client = own.newClient();
            try {
                RedisRateLimiter limiter = new RedisRateLimiter(client, "ratelimit:", Guards.patient());
                RateLimit limit = RateLimit.of("restart", Algorithm.SLIDING_WINDOW, 5, 60_000);
                assertThat(acquire(limiter, limit, "someone").allowed()).isTrue();

                own.restart(); // no persistence: the scripts and the counters are gone
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!pings(client)) {
                    assertThat(System.nanoTime()).as("reconnected within 20 s").isLessThan(deadline);
                    Thread.onSpinWait();
                }
                Decision after = acquire(limiter, limit, "someone");

                assertThat(after.allowed()).isTrue();
                assertThat(after.remaining()).isEqualTo(4);
            } finally {
                client.shutdown();
            }
        }
    }

    public static boolean pings(RedissonClient client) {
        try {
            return client.getRedisNodes(org.redisson.api.redisnode.RedisNodes.SINGLE)
                    .pingAll(200, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Once Redis refused a pair, a flood against it costs no script call until Redis said it could admit again. */
    @Test
    void aFloodAgainstAnExhaustedLimitIsRefusedInTheJvm() {
        RateLimit limit = RateLimit.of("local-flood", Algorithm.SLIDING_WINDOW, 3, 60_000);
        String id = fresh();
        for (int i = 0; i < 3; i++) {
            assertThat(acquire(instanceA, limit, id).allowed()).isTrue();
        }
        Decision first = untilServedLocally(instanceA, limit, id);
        long evalshaBefore = RedisCommands.commandCalls(clientA, "evalsha");
        for (int i = 0; i < 1_000; i++) {
            Decision refused = acquire(instanceA, limit, id);
            assertThat(refused.allowed()).isFalse();
            assertThat(refused.servedLocally()).isTrue();
            assertThat(refused.outcomes()).singleElement().satisfies(o -> {
                assertThat(o.remaining()).isZero();
                assertThat(o.retryAfter()).isPositive().isLessThanOrEqualTo(first.retryAfter());
            });
        }
        assertThat(RedisCommands.commandCalls(clientA, "evalsha") - evalshaBefore)
                .isZero();
        // another identifier, and the same identifier at another cost, still go to Redis
        assertThat(acquire(instanceA, limit, fresh()).allowed()).isTrue();
        assertThat(instanceA.tryAcquire(List.of(LimitRequest.of(limit, id, 0))).servedLocally())
                .isFalse();
    }

    /** Shadow and staggered requests are never refused locally. */
    @Test
    void shadowAndStaggeredRequestsAlwaysGoToRedis() {
        RateLimit limit = RateLimit.of("local-shadow", Algorithm.FIXED_WINDOW, 1, 60_000);
        String id = fresh();
        acquire(instanceA, limit, id);
        untilServedLocally(instanceA, limit, id);
        Decision shadow =
                instanceA.tryAcquire(List.of(LimitRequest.of(limit, id, 1).asShadow(true)));
        assertThat(shadow.servedLocally()).isFalse();
        assertThat(shadow.allowed()).isTrue();
        Decision staggered = instanceA.tryAcquire(
                List.of(LimitRequest.of(limit, id, 1).asShadow(false).asStaggered(true)));
        assertThat(staggered.servedLocally()).isFalse();
        assertThat(staggered.allowed()).isFalse();
    }
}
