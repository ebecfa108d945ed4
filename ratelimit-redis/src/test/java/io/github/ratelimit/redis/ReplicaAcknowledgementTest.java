package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import io.github.ratelimit.test.support.RawRedis;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

/**
 * Tokens and locks that wait for a replica's acknowledgement (Redis {@code WAIT}) before reporting success: a real
 * master with a real replica, the replica frozen (SIGSTOP) so that it acknowledges nothing; and a single Redis without
 * replicas, where the wait costs nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplicaAcknowledgementTest {

    static final Duration WAIT = Duration.ofMillis(150);

    RedisProcess master;
    RedisProcess replica;
    RedissonClient client;
    RedisGuard guard = new RedisGuard(Duration.ofSeconds(2), 100, Duration.ofSeconds(1));

    @BeforeAll
    void start() {
        master = RedisProcess.start();
        replica = RedisProcess.start(List.of("replicaof 127.0.0.1 " + master.port()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!RawRedis.command(master.port(), "INFO", "replication").contains("connected_slaves:1")
                || !RawRedis.command(replica.port(), "INFO", "replication").contains("master_link_status:up")) {
            assertThat(System.nanoTime()).as("replica in sync").isLessThan(deadline);
            Thread.onSpinWait();
        }
        client = master.newClient();
    }

    @AfterAll
    void stop() {
        client.shutdown();
        replica.close();
        master.close();
    }

    /**
     * Uses that wait for a replica go in one batch with {@code WAIT}: on a master that forgot the script (restart,
     * {@code SCRIPT FLUSH}) the use still works, the script loaded again before it is sent again.
     */
    @Test
    void aUseThatWaitsForAReplicaWorksOnAMasterThatForgotTheScript() {
        RedisSingleUseTokens tokens = new RedisSingleUseTokens(client, "ratelimit:", guard, WAIT);
        IssuedToken token = tokens.issue("flushed", Map.of(), Duration.ofMinutes(5), 1);
        assertThat(RawRedis.command(master.port(), "SCRIPT", "FLUSH")).startsWith("+OK");

        assertThat(tokens.consume("flushed", token.token()).status()).isEqualTo(Status.CONSUMED);
        assertThat(tokens.consume("flushed", token.token()).status()).isEqualTo(Status.ALREADY_USED);
    }

    @Test
    void aUseNoReplicaAcknowledgedIsGivenBackAndAnsweredAsUnavailable() throws Exception {
        RedisSingleUseTokens tokens = new RedisSingleUseTokens(client, "ratelimit:", guard, WAIT);
        IssuedToken token = tokens.issue("reset", Map.of("user", "42"), Duration.ofMinutes(5), 1);
        IssuedToken other = tokens.issue("reset", Map.of(), Duration.ofMinutes(5), 1);
        awaitOnReplica(new RedisKeys("ratelimit:").tokenKey("reset", other.token()));

        replica.freeze();
        try {
            assertThatThrownBy(() -> tokens.consume("reset", token.token()))
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining("No replica acknowledged a use of a 'reset' token in time");
            ExecutionException async = org.junit.jupiter.api.Assertions.assertThrows(
                    ExecutionException.class,
                    () -> tokens.consumeAsync("reset", other.token()).get(5, TimeUnit.SECONDS));
            assertThat(rootOf(async)).isInstanceOf(RedisUnavailableException.class);
        } finally {
            replica.thaw();
        }

        // the uses were given back: each token works exactly once now that the replica answers
        assertThat(tokens.consume("reset", token.token()).status()).isEqualTo(Status.CONSUMED);
        assertThat(tokens.consume("reset", token.token()).status()).isEqualTo(Status.ALREADY_USED);
        assertThat(tokens.consumeAsync("reset", other.token())
                        .get(5, TimeUnit.SECONDS)
                        .status())
                .isEqualTo(Status.CONSUMED);
        assertThat(tokens.consume("reset", other.token()).status()).isEqualTo(Status.ALREADY_USED);
    }

    @Test
    void aLockNoReplicaAcknowledgedIsReleasedAndNeverReportedHeld() throws Exception {
        RedisLockManager durable = new RedisLockManager(client, "ratelimit:", guard, WAIT);
        RedisLockManager other = new RedisLockManager(client, "ratelimit:", guard);
        LockOptions options = LockOptions.lease(Duration.ofSeconds(30));
        replica.freeze();
        try {
            assertThatThrownBy(() -> durable.tryAcquire("report-7", options))
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining("No replica acknowledged the lock 'report-7' in time");
            ExecutionException async = org.junit.jupiter.api.Assertions.assertThrows(
                    ExecutionException.class,
                    () -> durable.tryAcquireAsync("report-8", options).get(5, TimeUnit.SECONDS));
            assertThat(rootOf(async)).isInstanceOf(RedisUnavailableException.class);
        } finally {
            replica.thaw();
        }
        // released by its owner: another holder gets both at once, without waiting out the 30 s lease
        awaitFree(other, "report-7");
        awaitFree(other, "report-8");
        try (LockHandle held = durable.tryAcquire("report-9", options)) {
            assertThat(held.isHeld()).isTrue();
        }
        durable.close();
        other.close();
    }

    @Test
    void aWaitThatDoesNotFitTheBudgetIsRefusedWithTheProperty() {
        assertThatThrownBy(() -> new RedisSingleUseTokens(client, "ratelimit:", guard, Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ratelimit.durability.tokens")
                .hasMessageContaining("shorter than ratelimit.redis.timeout (2000 ms)");
        assertThatThrownBy(() -> new RedisLockManager(client, "ratelimit:", guard, Duration.ofNanos(500_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ratelimit.durability.locks replica wait must be zero (off) or at least 1 ms");
    }

    /** On a Redis without replicas the wait is never sent: tokens and locks work as without it. */
    @Test
    void withoutReplicasNothingWaits() {
        RedisProcess alone = SharedRedis.get();
        RedissonClient aloneClient = alone.newClient();
        try {
            RedisSingleUseTokens tokens = new RedisSingleUseTokens(aloneClient, "ratelimit:", guard, WAIT);
            RedisLockManager locks = new RedisLockManager(aloneClient, "ratelimit:", guard, WAIT);
            long waitsBefore = RedisCommands.commandCalls(aloneClient, "wait");
            for (int i = 0; i < 20; i++) {
                IssuedToken token = tokens.issue("invite", Map.of(), Duration.ofMinutes(1), 1);
                assertThat(tokens.consume("invite", token.token()).status()).isEqualTo(Status.CONSUMED);
                try (LockHandle lock = locks.tryAcquire("alone-" + i, LockOptions.lease(Duration.ofSeconds(5)))) {
                    assertThat(lock.isHeld()).isTrue();
                }
            }
            assertThat(RedisCommands.commandCalls(aloneClient, "wait")).isEqualTo(waitsBefore);
            locks.close();
        } finally {
            aloneClient.shutdown();
        }
    }

    /** With the replica answering, every use and acquisition waits for it: one WAIT each. */
    @Test
    void withAReplicaEverySuccessWaitsForIt() {
        RedisSingleUseTokens tokens = new RedisSingleUseTokens(client, "ratelimit:", guard, WAIT);
        RedisLockManager locks = new RedisLockManager(client, "ratelimit:", guard, WAIT);
        long waitsBefore = 0;
        for (int i = 0; i < 11; i++) {
            if (i == 1) { // the first round loads the scripts (a NOSCRIPT answer is retried, and its WAIT counts too)
                waitsBefore = RedisCommands.commandCalls(client, "wait");
            }
            IssuedToken token = tokens.issue("invite", Map.of(), Duration.ofMinutes(1), 1);
            assertThat(tokens.consume("invite", token.token()).status()).isEqualTo(Status.CONSUMED);
            try (LockHandle lock = locks.tryAcquire("with-replica-" + i, LockOptions.lease(Duration.ofSeconds(5)))) {
                assertThat(lock.isHeld()).isTrue();
            }
        }
        assertThat(RedisCommands.commandCalls(client, "wait")).isEqualTo(waitsBefore + 20);
        locks.close();
    }

    static Throwable rootOf(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root;
    }

    void awaitOnReplica(String key) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!RawRedis.command(replica.port(), "EXISTS", key).contains("1")) {
            assertThat(System.nanoTime()).as("replicated").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    static void awaitFree(RedisLockManager locks, String key) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            try (LockHandle lock = locks.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5)))) {
                assertThat(lock.isHeld()).isTrue();
                return;
            } catch (io.github.ratelimit.core.locks.LockNotAcquiredException e) {
                assertThat(System.nanoTime()).as("released %s", key).isLessThan(deadline);
            }
        }
    }
}
