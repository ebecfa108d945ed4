package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
        batcher = new ScriptBatcher(new ScriptExecutor(client, guard), new DecisionScripts()::forCall);
    }

    @AfterAll
    static void stop() {
        client.shutdown();
        redis.close();
    }

    /**
     * A call's reply comes as integers joined by commas (Lua writes those beyond 14 digits in exponent form), each answer
     * as its remaining count alone when it has room and resets a whole window, else in full after a negative marker.
     */
    @Test
    void repliesJoinedByCommasAreReadInFull() {
        RateLimit minute = RateLimit.of("read", Algorithm.SLIDING_WINDOW, 10, 60_000);
        Map<String, LimitRequest> byKey = new LinkedHashMap<>();
        byKey.put("a", LimitRequest.of(minute, "x", 1));
        byKey.put("b", LimitRequest.of(RateLimit.of("read", Algorithm.FIXED_WINDOW, 10, 1_000), "x", 1));
        byKey.put("c", LimitRequest.of(minute, "y", 1));
        List<LimitRequest> group = List.copyOf(byKey.values());

        assertThat(RateLimitScriptCodec.answers("1,1700000000123,7,-1,3,998,0,1e+15,2", group))
                .containsExactly(
                        1, 1_700_000_000_123L, 1, 7, 60_000, 0, 1, 3, 998, 0, 1, 1_000_000_000_000_000L, 60_000, 0, 2);
        assertThat(RateLimitScriptCodec.answers("0,1700000000123,-2,-3,5,6,4,-2,0,9,9", group))
                .containsExactly(0, 1_700_000_000_123L, 0, -3, 5, 6, 1, 4, 1_000, 0, 0, 0, 9, 9);
        assertThatThrownBy(() -> RateLimitScriptCodec.answers("1,1700000000123,7", group))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RateLimitScriptCodec.answers(List.of(1L), group))
                .isInstanceOf(IllegalStateException.class);
    }

    /** A spec the script cannot use is refused with the key it belongs to, and the whole batch writes nothing. */
    @Test
    void aBadSpecIsRefusedAndNothingIsWritten() {
        String key = "batch:{" + UUID.randomUUID() + "}:fw";
        for (String bad :
                new String[] {"2,0,60000,1,0,0", "2,5,60000,6,0,0", "9,5,60000,1,0,0", "2,5,x,1,0,0", "4,1,5"}) {
            CompletableFuture<Object> reply =
                    batcher.submit(0, List.of(key, key), List.of("2", "2,5,60000,1,0,0", bad));

            assertThatThrownBy(reply::join).as(bad).hasMessageContaining("bad arguments for key 2");
        }
        assertThat(remaining(call(key, 5, 0).join())).isEqualTo(5);
    }

    @Test
    void callsQueuedBehindTheInFlightOnesLeaveAsOneScriptCallAndAreDecidedExactly() {
        String key = "batch:{" + UUID.randomUUID() + "}:fw";
        call(key, 12, 0).join(); // the script is known to Redis from here on
        long before = RedisCommands.commandCalls(client, "evalsha");
        int queued = 10;
        List<CompletableFuture<Object>> replies = new ArrayList<>();

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

    /**
     * A shape too wide for a loop over calls (32 keys of 16 windows) has a script that decides one call per script call:
     * calls queued behind it leave one script call each, and each is decided.
     */
    @Test
    void callsOfAShapeDecidedOneAtATimeAreNeverBatched() {
        String tag = "{" + UUID.randomUUID() + "}";
        StringBuilder spec = new StringBuilder("4,1");
        for (int w = 1; w <= 16; w++) {
            spec.append(',').append(100 * w).append(',').append(60_000L * w);
        }
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>(List.of("32"));
        for (int k = 0; k < 32; k++) {
            keys.add("batch:" + tag + ":w" + k);
            args.add(spec.toString());
        }
        assertThat(new DecisionScripts().forCall(args).oneCallEach()).isTrue();
        batcher.submit(0, keys, args).join(); // the script is known to Redis from here on
        long before = RedisCommands.commandCalls(client, "evalsha");
        int queued = 3;
        List<CompletableFuture<Object>> replies = new ArrayList<>();

        redis.freeze();
        try {
            for (int i = 0; i < ScriptBatcher.MAX_IN_FLIGHT + queued; i++) {
                replies.add(batcher.submit(0, keys, args));
            }
        } finally {
            redis.thaw();
        }

        assertThat(replies)
                .allSatisfy(reply -> assertThat(admitted(reply.join())).isTrue());
        assertThat(RedisCommands.commandCalls(client, "evalsha") - before)
                .as("one script call per call")
                .isEqualTo(ScriptBatcher.MAX_IN_FLIGHT + queued);
    }

    @Test
    void aCallGivenUpBeforeItWasSentIsNeverSent() {
        String key = "batch:{" + UUID.randomUUID() + "}:fw";
        call(key, 100, 0).join();
        long before = RedisCommands.commandCalls(client, "evalsha");
        List<CompletableFuture<Object>> kept = new ArrayList<>();
        CompletableFuture<Object> givenUp;

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
            List<CompletableFuture<Object>> slots = new ArrayList<>();
            for (int i = 0; i < parts; i++) {
                slots.add(new CompletableFuture<>());
            }
            CompletableFuture<List<Object>> whole = ScriptBatcher.allOf(slots);

            whole.cancel(false);

            assertThat(slots).as("%d part(s)", parts).allSatisfy(part -> assertThat(part)
                    .isCancelled());
        }
    }

    @Test
    void aCallAnsweredInPartsGetsThePartsInOrder() {
        CompletableFuture<Object> first = new CompletableFuture<>();
        CompletableFuture<Object> second = new CompletableFuture<>();
        CompletableFuture<List<Object>> whole = ScriptBatcher.allOf(List.of(first, second));

        second.complete(List.of("b"));
        first.complete(List.of("a"));

        assertThat(whole.join()).containsExactly(List.of("a"), List.of("b"));
        assertThat(first).isNotCancelled();
    }

    /** One call of a fixed window on one key, as the rate limiter would send it. */
    private static CompletableFuture<Object> call(String key, long limit, long cost) {
        List<String> args = List.of("1", "2," + limit + ",60000," + cost + ",0,0");
        CompletableFuture<Object> reply = batcher.submit(0, List.of(key), args);
        return reply.orTimeout(20, TimeUnit.SECONDS);
    }

    private static boolean admitted(Object reply) {
        return read(reply)[0] == 1;
    }

    private static long remaining(Object reply) {
        return read(reply)[3];
    }

    /** The reply in full, as the rate limiter reads it (the window is all it needs of the request). */
    private static long[] read(Object reply) {
        RateLimit minute = RateLimit.of("batch", Algorithm.FIXED_WINDOW, 1, 60_000);
        return RateLimitScriptCodec.answers(reply, List.of(LimitRequest.of(minute, "k", 0)));
    }
}
