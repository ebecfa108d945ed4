package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.concurrency.RedisConcurrencyLimiter;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import io.github.ratelimit.test.kit.AdaptiveConcurrencyLimiterContract;
import io.github.ratelimit.test.kit.ConcurrencyLimiterContract;
import io.github.ratelimit.test.kit.LockManagerContract;
import io.github.ratelimit.test.kit.RateLimiterContract;
import io.github.ratelimit.test.kit.SingleUseTokensContract;
import io.github.ratelimit.test.kit.UsageContract;
import io.github.ratelimit.test.kit.WaitingContract;
import io.github.ratelimit.test.support.RedisClusterProcess;
import io.github.ratelimit.test.support.RedisTopology;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;

/**
 * The SPI test kit run against the Redis implementations: each instance of an implementation has a Redis client of its
 * own, as an instance of an application would. {@link TestKitOnOneRedisTest} and {@link TestKitOnClusterTest} say where.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class TestKitOnRedis {

    private final List<RedissonClient> clients = new CopyOnWriteArrayList<>();

    abstract RedisTopology topology();

    RedissonClient client() {
        RedissonClient client = topology().newClient();
        clients.add(client);
        return client;
    }

    @AfterAll
    void shutDownClients() {
        clients.forEach(RedissonClient::shutdown);
    }

    @Nested
    class RateLimiters extends RateLimiterContract {
        @Override
        protected RateLimiter newInstance() {
            return new RedisRateLimiter(client(), "kit:", Guards.patient());
        }

        /** On a Cluster, a call's counters in different hash slots are decided slot by slot (see RedisRateLimiter). */
        @Override
        protected boolean callsAreAtomic() {
            return !(topology() instanceof RedisClusterProcess);
        }
    }

    /** The same contract, every call made too wide for Lua's locals (see {@link WideCalls}). */
    @Nested
    class WideRateLimiters extends RateLimiterContract {
        @Override
        protected RateLimiter newInstance() {
            return new WideCalls(new RedisRateLimiter(client(), "kit:", Guards.patient()));
        }

        @Test
        void everyCallIsTooWideForLocals() {
            String shape = WideCalls.shapeOf(LimitRequest.of(
                    RateLimit.of("one", io.github.ratelimit.annotation.Algorithm.SLIDING_WINDOW, 5, 1_000), "a", 1));

            assertThat(DecisionScripts.locals(DecisionScripts.assemble(shape)))
                    .as(shape)
                    .isGreaterThan(DecisionScripts.LOCALS);
            assertThat(new DecisionScripts().forShape(shape).source()).startsWith("local L = {}");
        }

        @Override
        protected boolean callsAreAtomic() {
            return !(topology() instanceof RedisClusterProcess);
        }
    }

    @Nested
    class Waiting extends WaitingContract {
        @Override
        protected RateLimiter newInstance() {
            return new RedisRateLimiter(client(), "kit:", Guards.patient());
        }
    }

    @Nested
    class Usages extends UsageContract {
        private final RedissonClient reader = client();

        @Override
        protected RateLimiter newInstance() {
            return new RedisRateLimiter(client(), "kit:", Guards.patient());
        }

        /** Every key of the limit name on every master: its bytes and its time to live. */
        @Override
        protected Map<String, String> storedState(String limitName) {
            Map<String, String> state = new TreeMap<>();
            for (String key : RedisKeys.scan(reader, "kit:*}:" + limitName + ":*", 1_000)) {
                byte[] value =
                        reader.<byte[]>getBucket(key, ByteArrayCodec.INSTANCE).get();
                long ttl = reader.getBucket(key).remainTimeToLive();
                state.put(key, HexFormat.of().formatHex(value) + "|ttl=" + ttl);
            }
            return state;
        }
    }

    @Nested
    class Tokens extends SingleUseTokensContract {
        @Override
        protected SingleUseTokens newInstance() {
            return new RedisSingleUseTokens(client(), "kit:", Guards.patient());
        }
    }

    @Nested
    class Locks extends LockManagerContract {
        @Override
        protected LockManager newInstance() {
            return new RedisLockManager(client(), "kit:", Guards.patient());
        }
    }

    @Nested
    class ConcurrencyLimits extends ConcurrencyLimiterContract {
        @Override
        protected ConcurrencyLimiter newInstance() {
            return new RedisConcurrencyLimiter(client(), "kit:", Guards.patient());
        }
    }

    /**
     * The adaptive contract, two instances with a Redis client each: it measures goodput and latency on real threads,
     * which the full parallel build's load can starve, so it runs where the machine is given to it: the compatibility
     * run ({@code .ci/compat}) and {@code -Dratelimit.test.timing=true}. The memory store's runs in every build.
     */
    @Nested
    @EnabledIfSystemProperty(
            named = "ratelimit.test.timing",
            matches = "true",
            disabledReason = "timing-sensitive: .ci/compat, or -Dratelimit.test.timing=true")
    class AdaptiveConcurrencyLimits extends AdaptiveConcurrencyLimiterContract {
        @Override
        protected AdaptiveConcurrencyLimiter newInstance() {
            return new RedisConcurrencyLimiter(client(), "kit:", Guards.patient());
        }
    }
}
