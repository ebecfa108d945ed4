package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.ratelimit.redis.RedisInstances;
import io.github.ratelimit.test.support.RedisProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two instances of a sample app on one real Redis, {@code /api/hello} limited to 5 per second with the default failure
 * mode (local): while Redis is gone (killed) or frozen (SIGSTOP), a burst of 40 calls across both instances is decided
 * in memory, each instance admitting its share (5 / 2 instances = 2), every call answered within the budget; once Redis
 * answers again, the same burst is decided by Redis, exactly, without a restart. Run for both samples.
 */
abstract class RedisOutageContract {

    private static final int BURST = 40;

    /** The limiter's budget (200 ms) and what an HTTP call on a busy two-core machine adds to it. */
    private static final long ANSWERED_WITHIN_MS = 200 + 400;

    /** The application class to start twice. */
    abstract Class<?> application();

    RedisProcess redis;
    RedissonClient inspector;
    List<ConfigurableApplicationContext> instances = new ArrayList<>();
    int clients;

    @BeforeEach
    void start() {
        redis = RedisProcess.start();
        inspector = redis.newClient();
        for (int i = 0; i < 2; i++) {
            instances.add(new SpringApplicationBuilder(application())
                    .run("--server.port=0", "--spring.data.redis.url=" + redis.url()));
        }
        await("both instances see two instances", 15_000, () -> instances.stream()
                .allMatch(context -> context.getBean(RedisInstances.class).count() == 2));
    }

    @AfterEach
    void stop() {
        try {
            redis.thaw();
        } catch (RuntimeException notFrozen) {
            // nothing to thaw
        }
        instances.forEach(ConfigurableApplicationContext::close);
        inspector.shutdown(0, 2, TimeUnit.SECONDS);
        redis.close();
    }

    @Test
    void redisKilledEachInstanceAdmitsItsShareAndRedisDecidesAgainOnceRestarted() throws Exception {
        limitsHoldThrough(redis::crash, redis::restart);
    }

    @Test
    void redisFrozenEachInstanceAdmitsItsShareWithinTheBudgetAndRedisDecidesAgainOnceThawed() throws Exception {
        limitsHoldThrough(redis::freeze, redis::thaw);
    }

    /** Exact with Redis; each instance its share while the fault lasts; exact again once it is over. */
    private void limitsHoldThrough(Runnable fault, Runnable recovery) throws Exception {
        assertThat(burst().admitted()).as("Redis decides").isEqualTo(5);

        fault.run();
        Burst withoutRedis = burst();
        System.out.printf("burst without Redis: worst call %d ms%n", withoutRedis.worstMillis());
        assertThat(withoutRedis.worstMillis()).isLessThanOrEqualTo(ANSWERED_WITHIN_MS);
        assertThat(withoutRedis.admitted())
                .as("each instance its share, in memory")
                .isBetween(2L, 6L);

        recovery.run();
        awaitRedisDecidesOnBothInstances();
        assertThat(burst().admitted()).as("Redis decides again").isEqualTo(5);
    }

    /** Forty calls at once from a new client, alternating between the instances, within one second. */
    private Burst burst() throws Exception {
        Burst burst =
                Burst.send(newClient(), List.of(port(instances.get(0)), port(instances.get(1))), "/api/hello", BURST);
        assumeTrue(
                burst.elapsedMs() < 1_000,
                "the burst within the one-second window (took " + burst.elapsedMs() + " ms)");
        assertThat(burst.statuses()).containsOnly(200, 429);
        assertThat(burst.answers()).allMatch(Burst.Answer::rateLimitFields, "every answer has its RateLimit fields");
        return burst;
    }

    /** A client address not used before in this test: 127.0.1.1, 127.0.1.2, ... */
    private String newClient() {
        int n = clients++;
        return "127.0." + (n / 250 + 1) + "." + (n % 250 + 1);
    }

    /**
     * Until each instance has had a call decided by Redis (a new client's call that left a key in Redis), which ends
     * its local limits.
     */
    private void awaitRedisDecidesOnBothInstances() {
        for (ConfigurableApplicationContext instance : instances) {
            await("Redis decides on the instance on port " + port(instance), 30_000, () -> {
                try {
                    long before = inspector.getKeys().count();
                    RawHttp.get(newClient(), port(instance), "/api/hello", Map.of());
                    return inspector.getKeys().count() > before;
                } catch (RuntimeException notYet) {
                    return false;
                }
            });
        }
    }

    private static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    private static void await(String what, long timeoutMs, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as(what).isNegative();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
