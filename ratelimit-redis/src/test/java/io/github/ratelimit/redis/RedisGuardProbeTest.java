package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import io.github.ratelimit.test.kit.Poll;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * The guard opens on evidence that Redis fails, not on calls that ran out of budget inside the JVM before Redis saw
 * them: after {@code failureThreshold} such calls it asks a real Redis directly. Calls stuck in the JVM are futures
 * that never complete (as a call not yet sent by a starved event loop would be).
 */
class RedisGuardProbeTest {

    private static final Duration BUDGET = Duration.ofMillis(100);

    RedisProcess redis;
    RedissonClient client;
    RedisGuard guard;

    @BeforeEach
    void start() {
        redis = RedisProcess.start();
        client = redis.newClient();
        guard = new RedisGuard(redis.url(), BUDGET, 3, Duration.ofSeconds(30));
        guard.prober(ScriptExecutor.probe(client, guard.probeBudget())); // as RedisConnector sets it
    }

    @AfterEach
    void stop() {
        try {
            redis.thaw();
        } catch (RuntimeException notFrozen) {
            // nothing to thaw
        }
        client.shutdown(0, 2, TimeUnit.SECONDS);
        redis.close();
    }

    private void stuckInTheJvm() {
        assertThatThrownBy(() -> guard.call(CompletableFuture::new))
                .isInstanceOf(RedisUnavailableException.class)
                .hasMessageContaining("did not answer within");
    }

    @Test
    void callsSlowInTheJvmWhileRedisAnswersLeaveTheGuardClosed() {
        for (int i = 0; i < 3; i++) {
            stuckInTheJvm();
        }
        Poll.until("the probe answered", Duration.ofSeconds(10), () -> guard.slowInTheJvm() == 1);
        assertThat(guard.isOpen()).isFalse();
        assertThat(guard.<String>call(() -> CompletableFuture.completedFuture("decided")))
                .isEqualTo("decided");

        for (int i = 0; i < 3; i++) {
            stuckInTheJvm(); // the count started again: three more before the next probe
        }
        Poll.until("the second probe answered", Duration.ofSeconds(10), () -> guard.slowInTheJvm() == 2);
        assertThat(guard.isOpen()).isFalse();
    }

    @Test
    void callsThatRunOutOfBudgetWhileRedisIsFrozenOpenTheGuardOnceTheProbeRunsOutToo() {
        redis.freeze();
        for (int i = 0; i < 3; i++) {
            stuckInTheJvm();
        }
        assertThat(guard.isOpen()).as("open only once the probe ran out").isFalse();
        Poll.until("the guard opened after the probe's budget", Duration.ofSeconds(10), guard::isOpen);
        assertThat(guard.slowInTheJvm()).isZero();
        assertThatThrownBy(() -> guard.call(() -> {
                    throw new AssertionError("an open guard does not call Redis");
                }))
                .isInstanceOf(RedisUnavailableException.class);
    }

    @Test
    void failedCallsOpenTheGuardWithoutAProbe() {
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(
                            () -> guard.call(() -> CompletableFuture.failedFuture(new IllegalStateException("reset"))))
                    .isInstanceOf(RedisUnavailableException.class);
        }
        assertThat(guard.isOpen()).isTrue();
    }
}
