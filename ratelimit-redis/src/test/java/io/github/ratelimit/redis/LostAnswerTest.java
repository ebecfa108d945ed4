package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import io.github.ratelimit.fixtures.Stalls;
import io.github.ratelimit.redis.concurrency.RedisConcurrencyLimiter;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import io.github.ratelimit.test.kit.Poll;
import io.github.ratelimit.test.support.RawRedis;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

/**
 * A token used while its answer is lost: a master with a replica (uses wait for the replica's acknowledgement), the
 * master frozen (SIGSTOP) past the budget while the token is used, blocking and not. The caller is told Redis is
 * unavailable; the use, taken when the master resumes (or before it froze), is given back by its attempt id: once the
 * master answers, the token works exactly once. Without the give-back the token was gone, though its only use was
 * answered as a failure. The same for a lock and a concurrency slot: free again at once, not at the end of their lease.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LostAnswerTest {

    /** 300 ms, more on a busy machine: calls made while the master answers must be answered in time. */
    final Duration budget = Stalls.budget(Duration.ofMillis(300));

    RedisProcess master;
    RedisProcess replica;
    RedissonClient client;
    RedisSingleUseTokens tokens;
    /** The same tokens on a patient budget: what a use is answered once the master answers again, however slowly. */
    RedisSingleUseTokens otherTokens;

    RedisLockManager locks;
    RedisLockManager otherLocks;
    RedisConcurrencyLimiter slots;
    RedisConcurrencyLimiter otherSlots;
    RedisRateLimiter limiter;
    final List<RateLimitListener.GiveBack> givenBack = new CopyOnWriteArrayList<>();

    @BeforeAll
    void start() {
        master = RedisProcess.start();
        replica = RedisProcess.start(List.of("replicaof 127.0.0.1 " + master.port()));
        Poll.until(
                "the replica in sync",
                Duration.ofSeconds(30),
                () -> RawRedis.command(master.port(), "INFO", "replication").contains("connected_slaves:1")
                        && RawRedis.command(replica.port(), "INFO", "replication")
                                .contains("master_link_status:up"));
        client = master.newClient();
        RedisGuard guard = new RedisGuard(budget, 1_000, Duration.ofMillis(10));
        tokens = new RedisSingleUseTokens(client, "lost:", guard, Duration.ofMillis(100));
        locks = new RedisLockManager(client, "lost:", guard, Duration.ofMillis(100));
        slots = new RedisConcurrencyLimiter(client, "lost:", guard);
        limiter = new RedisRateLimiter(client, "lost:", guard);
        RedisGuard patient = new RedisGuard(Duration.ofSeconds(5), 1_000, Duration.ofMillis(10));
        otherLocks = new RedisLockManager(client, "lost:", patient, Duration.ZERO);
        otherTokens = new RedisSingleUseTokens(client, "lost:", patient, Duration.ofMillis(100));
        otherSlots = new RedisConcurrencyLimiter(client, "lost:", patient);
        RateLimitListener counting = new RateLimitListener() {
            @Override
            public void gaveBack(String what, GiveBack outcome) {
                givenBack.add(outcome);
            }
        };
        tokens.events().add(counting);
        locks.events().add(counting);
        slots.events().add(counting);
        limiter.events().add(counting);
    }

    @AfterAll
    void stop() {
        locks.close();
        otherLocks.close();
        slots.close();
        otherSlots.close();
        client.shutdown();
        replica.close();
        master.close();
    }

    @RepeatedTest(20)
    void aUseWhoseAnswerIsLostIsGivenBackAndTheTokenWorksExactlyOnce() throws Exception {
        IssuedToken blocking = tokens.issue("reset", Map.of("user", "42"), Duration.ofMinutes(5), 1);
        IssuedToken async = tokens.issue("reset", Map.of("user", "43"), Duration.ofMinutes(5), 1);
        int before = givenBack.size();

        master.freeze();
        CompletableFuture<?> asyncUse;
        try {
            assertThatThrownBy(() -> tokens.consume("reset", blocking.token()))
                    .isInstanceOf(RedisUnavailableException.class);
            asyncUse = tokens.consumeAsync("reset", async.token());
            ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                    ExecutionException.class, () -> asyncUse.get(5, TimeUnit.SECONDS));
            assertThat(failed.getCause()).isInstanceOf(RedisUnavailableException.class);
        } finally {
            master.thaw();
        }

        Poll.until("both give-backs answered", Duration.ofSeconds(15), () -> givenBack.size() >= before + 2);
        assertThat(givenBack.subList(before, givenBack.size())).doesNotContain(RateLimitListener.GiveBack.FAILED);
        assertThat(otherTokens.consume("reset", blocking.token()).status()).isEqualTo(Status.CONSUMED);
        assertThat(otherTokens.consume("reset", blocking.token()).status()).isEqualTo(Status.ALREADY_USED);
        assertThat(otherTokens
                        .consumeAsync("reset", async.token())
                        .get(5, TimeUnit.SECONDS)
                        .status())
                .isEqualTo(Status.CONSUMED);
        assertThat(otherTokens.consume("reset", async.token()).status()).isEqualTo(Status.ALREADY_USED);
    }

    /**
     * A lock and a concurrency slot taken while their answer is lost (blocking and not): once the master answers, they
     * are free again at once, not after their 30 s lease; another owner takes them.
     */
    @RepeatedTest(5)
    void aLockAndASlotWhoseAnswerIsLostAreGivenBackAtOnce() throws Exception {
        String id = java.util.UUID.randomUUID().toString();
        LockOptions thirtySeconds = LockOptions.lease(Duration.ofSeconds(30));
        ClientIdentifier user = ClientIdentifier.of("user", id);
        int before = givenBack.size();

        master.freeze();
        try {
            assertThatThrownBy(() -> locks.tryAcquire("report-" + id, thirtySeconds))
                    .isInstanceOf(RedisUnavailableException.class);
            ExecutionException lock = org.junit.jupiter.api.Assertions.assertThrows(
                    ExecutionException.class,
                    () -> locks.tryAcquireAsync("export-" + id, thirtySeconds).get(5, TimeUnit.SECONDS));
            assertThat(lock.getCause()).isInstanceOf(RedisUnavailableException.class);
            assertThatThrownBy(
                            () -> slots.tryAcquire("reports", user, 1, Duration.ofSeconds(30), Duration.ofSeconds(30)))
                    .isInstanceOf(RedisUnavailableException.class);
            ExecutionException slot =
                    org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, () -> slots.tryAcquireAsync(
                                    "exports", user, 1, Duration.ofSeconds(30), Duration.ofSeconds(30))
                            .get(5, TimeUnit.SECONDS));
            assertThat(slot.getCause()).isInstanceOf(RedisUnavailableException.class);
        } finally {
            master.thaw();
        }

        Poll.until("the four give-backs answered", Duration.ofSeconds(15), () -> givenBack.size() >= before + 4);
        assertThat(givenBack.subList(before, givenBack.size())).doesNotContain(RateLimitListener.GiveBack.FAILED);
        try (LockHandle report = otherLocks.tryAcquire("report-" + id, thirtySeconds);
                LockHandle export = otherLocks.tryAcquire("export-" + id, thirtySeconds)) {
            assertThat(report.isHeld()).isTrue();
            assertThat(export.isHeld()).isTrue();
        }
        ConcurrencyLimiter.Permit reports =
                otherSlots.tryAcquire("reports", user, 1, Duration.ofSeconds(30), Duration.ofSeconds(30));
        ConcurrencyLimiter.Permit exports =
                otherSlots.tryAcquire("exports", user, 1, Duration.ofSeconds(30), Duration.ofSeconds(30));
        assertThat(reports.release()).isTrue();
        assertThat(exports.release()).isTrue();
    }

    /**
     * A charge after a call whose answer is lost (blocking for the master, then not): the caller's future fails, the
     * charge is sent again by its attempt id, and the limit is charged exactly once, whether the first one reached
     * Redis or not: 3 units of a fixed window count 3, never 6 or 0.
     */
    @RepeatedTest(5)
    void aChargeWhoseAnswerIsLostIsAppliedExactlyOnce() throws Exception {
        RateLimit limit = RateLimit.of("export", Algorithm.FIXED_WINDOW, 10, 60_000);
        ClientIdentifier user =
                ClientIdentifier.of("user", java.util.UUID.randomUUID().toString());
        List<LimitRequest> requests = List.of(LimitRequest.of(limit, user, 1));
        String key = new RedisKeys("lost:").rateLimitKey(limit, RedisKeys.tag(user));
        int before = givenBack.size();

        master.freeze();
        try {
            ExecutionException charge = org.junit.jupiter.api.Assertions.assertThrows(
                    ExecutionException.class,
                    () -> limiter.chargeAsync(requests, 3).get(5, TimeUnit.SECONDS));
            assertThat(charge.getCause()).isInstanceOf(RedisUnavailableException.class);
        } finally {
            master.thaw();
        }

        Poll.until("the charge sent again answered", Duration.ofSeconds(15), () -> givenBack.size() >= before + 1);
        assertThat(givenBack.subList(before, givenBack.size())).doesNotContain(RateLimitListener.GiveBack.FAILED);
        assertThat(RawRedis.command(master.port(), "GET", key).lines().toList())
                .as("the fixed window counted once")
                .containsExactly("$1", "3");
    }
}
