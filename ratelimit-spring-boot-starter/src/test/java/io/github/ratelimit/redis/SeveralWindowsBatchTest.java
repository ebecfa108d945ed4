package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.testing.RedisCommands;
import io.github.ratelimit.testing.SharedRedis;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;

/**
 * A batch of many calls for one key of several windows (a hot identifier under load) as ratelimit.lua gets it from the
 * batcher: the calls' entries, which all bear the batch's time, are written with one command after the first call's,
 * and are in the ring before any call of the batch reads an entry. Run on a single Redis, whose command counts are
 * exact.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SeveralWindowsBatchTest {

    RedissonClient client;
    ScriptExecutor executor;

    @BeforeAll
    void start() {
        client = SharedRedis.get().newClient();
        executor = new ScriptExecutor(client, new RedisGuard(Duration.ofSeconds(5), 5, Duration.ofSeconds(1)));
    }

    @AfterAll
    void stop() {
        client.shutdown();
    }

    /** 24 calls of one key, 100/s and 200/h: 3 SETRANGE (the first call's entry, the 23 others', the header). */
    @Test
    void aBatchOfOneKeyWritesItsEntriesOnce() {
        String key = key();
        long before = RedisCommands.commandCalls(client, "setrange");

        List<String> replies = batch(key, Collections.nCopies(24, "4,1,100,1000,200,3600000"));

        assertThat(RedisCommands.commandCalls(client, "setrange") - before).isEqualTo(3);
        long now = Long.parseLong(replies.get(0).split(",")[1]);
        for (int i = 1; i <= 24; i++) {
            assertThat(replies.get(i - 1)).isEqualTo("1," + now + "," + (100 - i) + "," + (200 - i));
        }
        assertThat(entries(key, 20 + 2 * 10, 24)).containsOnly(now).hasSize(24);
    }

    /**
     * Four calls admitted, then one of cost 2 refused by the 4-per-second window: the entry that must leave first for
     * it is the second call's, one not written when the refusal reads it, so it is written first: the retry time is
     * exactly the window, not a time read from an empty slot.
     */
    @Test
    void aRefusalReadsEntriesTheBatchTookBeforeIt() {
        String key = key();
        List<String> specs = new ArrayList<>(Collections.nCopies(4, "4,1,4,1000,10,3600000"));
        specs.add("4,2,4,1000,10,3600000");

        List<String> replies = batch(key, specs);

        long now = Long.parseLong(replies.get(0).split(",")[1]);
        // refused: allowed - 2, remaining, reset, retry for the second-long window; the hour had room (6 left)
        assertThat(replies.get(4)).isEqualTo("0," + now + ",-2,0,1000,1000,6");
        assertThat(entries(key, 20 + 2 * 10, 4)).containsOnly(now).hasSize(4);
    }

    /**
     * A ring of 6 slots (limits 4 per second, 6 per 2 seconds): after both windows have emptied, a batch of 4 writes at
     * slots 4 and 5, then wraps to 0 and 1; the 2 entries of the first batch stay at slots 2 and 3.
     */
    @Test
    void entriesNotWrittenYetWrapAroundTheRing() {
        String key = key();
        String spec = "4,1,4,1000,6,2000";
        List<String> first = batch(key, Collections.nCopies(4, spec));
        long firstAt = Long.parseLong(first.get(0).split(",")[1]);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (RedisCommands.timeMs(client) < firstAt + 2_000) {
            assertThat(System.nanoTime()).as("Redis clock passing both windows").isLessThan(deadline);
            Thread.onSpinWait();
        }

        List<String> second = batch(key, Collections.nCopies(4, spec));

        long secondAt = Long.parseLong(second.get(0).split(",")[1]);
        for (int i = 1; i <= 4; i++) {
            assertThat(second.get(i - 1)).isEqualTo("1," + secondAt + "," + (4 - i) + "," + (6 - i));
        }
        assertThat(entries(key, 20 + 2 * 10, 6))
                .containsExactly(secondAt, secondAt, firstAt, firstAt, secondAt, secondAt);
    }

    private static String key() {
        return "batch:{" + UUID.randomUUID() + "}:swm";
    }

    /** One script call of one call per spec, all for `key`; returns each call's reply. */
    private List<String> batch(String key, List<String> specs) {
        List<Object> keys = new ArrayList<>();
        List<Object> args = new ArrayList<>();
        args.add(Integer.toString(specs.size()));
        for (String spec : specs) {
            keys.add(key);
            args.add("1");
            args.add(spec);
        }
        List<String> replies = new ArrayList<>();
        for (Object reply : executor.call(RedisRateLimiter.SCRIPT, keys, args.toArray())) {
            replies.add(String.valueOf(reply));
        }
        return replies;
    }

    /** The first `count` entries of the ring behind a header of `header` bytes, by slot, as epoch ms. */
    private List<Long> entries(String key, int header, int count) {
        byte[] value = client.<byte[]>getBucket(key, ByteArrayCodec.INSTANCE).get();
        assertThat(value).as("the ring of %s", key).isNotNull();
        List<Long> entries = new ArrayList<>();
        ByteBuffer ring = ByteBuffer.wrap(value);
        for (int slot = 0; slot < count; slot++) {
            int at = header + slot * 6;
            entries.add(((long) ring.getShort(at) & 0xFFFF) << 32 | (ring.getInt(at + 2) & 0xFFFFFFFFL));
        }
        return entries;
    }
}
