package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.SingleUseTokens.TokenConsumption.Status;
import io.github.ratelimit.test.support.Poll;
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
 * answered as a failure.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LostAnswerTest {

    static final Duration BUDGET = Duration.ofMillis(300);

    RedisProcess master;
    RedisProcess replica;
    RedissonClient client;
    RedisSingleUseTokens tokens;
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
        RedisGuard guard = new RedisGuard(BUDGET, 1_000, Duration.ofMillis(10));
        tokens = new RedisSingleUseTokens(client, "lost:", guard, Duration.ofMillis(100));
        tokens.events().add(new RateLimitListener() {
            @Override
            public void gaveBack(String what, GiveBack outcome) {
                givenBack.add(outcome);
            }
        });
    }

    @AfterAll
    void stop() {
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
        assertThat(tokens.consume("reset", blocking.token()).status()).isEqualTo(Status.CONSUMED);
        assertThat(tokens.consume("reset", blocking.token()).status()).isEqualTo(Status.ALREADY_USED);
        assertThat(tokens.consumeAsync("reset", async.token())
                        .get(5, TimeUnit.SECONDS)
                        .status())
                .isEqualTo(Status.CONSUMED);
        assertThat(tokens.consume("reset", async.token()).status()).isEqualTo(Status.ALREADY_USED);
    }
}
