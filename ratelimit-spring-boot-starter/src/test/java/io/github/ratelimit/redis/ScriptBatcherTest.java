package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.testing.RedisCommands;
import io.github.ratelimit.testing.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Coalescing on a real Redis, made deterministic by freezing the server (SIGSTOP): what is sent while it is
 * frozen stays on the way, so the calls beyond {@link ScriptBatcher#MAX_IN_FLIGHT} must queue, and they leave
 * together as one script call when the server answers again.
 */
class ScriptBatcherTest {

    private static RedisProcess redis;
    private static RedissonClient client;
    private static ScriptBatcher batcher;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        client = redis.newClient();
        RedisGuard guard = new RedisGuard(Duration.ofSeconds(10), 5, Duration.ofSeconds(1));
        batcher = new ScriptBatcher(new ScriptExecutor(client, guard), RedisRateLimiter.SCRIPT);
    }

    @AfterAll
    static void stop() {
        client.shutdown();
        redis.close();
    }

    /** A call's reply comes as integers joined by commas; Lua writes those beyond 14 digits in exponent form. */
    @Test
    void repliesJoinedByCommasAreReadAsNumbers() {
        assertThat(ScriptBatcher.numbers("1,1700000000123,-3,0,1e+15"))
                .containsExactly(1L, 1_700_000_000_123L, -3L, 0L, 1_000_000_000_000_000L);
    }

    @Test
    void callsQueuedBehindTheInFlightOnesLeaveAsOneScriptCallAndAreDecidedExactly() {
        String key = "batch:{" + UUID.randomUUID() + "}:fw";
        call(key, 12, 0).join(); // the script is known to Redis from here on
        long before = RedisCommands.commandCalls(client, "evalsha");
        int queued = 10;
        List<CompletableFuture<List<Object>>> replies = new ArrayList<>();

        redis.freeze();
        try {
            for (int i = 0; i < ScriptBatcher.MAX_IN_FLIGHT + queued; i++) {
                replies.add(call(key, 12, 1));
            }
        } finally {
            redis.thaw();
        }
        List<Boolean> admitted = replies.stream().map(r -> admitted(r.join())).toList();

        assertThat(RedisCommands.commandCalls(client, "evalsha") - before)
                .as("one script call per call in flight, then one for all the queued calls")
                .isEqualTo(ScriptBatcher.MAX_IN_FLIGHT + 1);
        assertThat(admitted).filteredOn(a -> a).hasSize(12);
        List<Boolean> batch = admitted.subList(ScriptBatcher.MAX_IN_FLIGHT, admitted.size());
        assertThat(batch)
                .as("decided in the order they were queued")
                .isSortedAccordingTo((a, b) -> Boolean.compare(b, a));
        assertThat(remaining(call(key, 12, 0).join())).isZero();
    }

    @Test
    void aCallGivenUpBeforeItWasSentIsNeverSent() {
        String key = "batch:{" + UUID.randomUUID() + "}:fw";
        call(key, 100, 0).join();
        long before = RedisCommands.commandCalls(client, "evalsha");
        List<CompletableFuture<List<Object>>> kept = new ArrayList<>();
        CompletableFuture<List<Object>> givenUp;

        redis.freeze();
        try {
            for (int i = 0; i < ScriptBatcher.MAX_IN_FLIGHT; i++) {
                kept.add(call(key, 100, 1));
            }
            givenUp = call(key, 100, 1);
            kept.add(call(key, 100, 1));
            assertThat(givenUp.cancel(false)).isTrue();
        } finally {
            redis.thaw();
        }
        kept.forEach(CompletableFuture::join);

        assertThat(givenUp).isCancelled();
        assertThat(remaining(call(key, 100, 0).join()))
                .as("the call given up took nothing")
                .isEqualTo(100 - kept.size());
        assertThat(RedisCommands.commandCalls(client, "evalsha") - before).isEqualTo(ScriptBatcher.MAX_IN_FLIGHT + 2);
    }

    @Test
    void theGuardCancelsWhatItStoppedWaitingFor() {
        RedisGuard guard = new RedisGuard(Duration.ofMillis(20), 5, Duration.ofSeconds(1));
        CompletableFuture<String> never = new CompletableFuture<>();

        assertThatThrownBy(() -> guard.call(() -> never)).isInstanceOf(RedisUnavailableException.class);

        assertThat(never).isCancelled();
    }

    @Test
    void givingUpOnACallGivesUpOnEachOfItsSlotParts() {
        for (int parts : new int[] {1, 3}) {
            List<CompletableFuture<List<Object>>> slots = new ArrayList<>();
            for (int i = 0; i < parts; i++) {
                slots.add(new CompletableFuture<>());
            }
            CompletableFuture<List<List<Object>>> whole = ScriptBatcher.allOf(slots);

            whole.cancel(false);

            assertThat(slots).as("%d part(s)", parts).allSatisfy(part -> assertThat(part)
                    .isCancelled());
        }
    }

    @Test
    void aCallAnsweredInPartsGetsThePartsInOrder() {
        CompletableFuture<List<Object>> first = new CompletableFuture<>();
        CompletableFuture<List<Object>> second = new CompletableFuture<>();
        CompletableFuture<List<List<Object>>> whole = ScriptBatcher.allOf(List.of(first, second));

        second.complete(List.of("b"));
        first.complete(List.of("a"));

        assertThat(whole.join()).containsExactly(List.of("a"), List.of("b"));
        assertThat(first).isNotCancelled();
    }

    /** One call of a fixed window on one key, as the rate limiter would send it. */
    private static CompletableFuture<List<Object>> call(String key, long limit, long cost) {
        List<String> args = List.of("1", "2", Long.toString(limit), "60000", Long.toString(cost), "0", "0");
        CompletableFuture<List<Object>> reply = batcher.submit(0, List.of(key), args);
        return reply.orTimeout(20, TimeUnit.SECONDS);
    }

    private static boolean admitted(List<Object> reply) {
        return ScriptExecutor.number(reply.get(0)) == 1;
    }

    private static long remaining(List<Object> reply) {
        return ScriptExecutor.number(reply.get(3));
    }
}
