package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.nio.ByteBuffer;
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
 * A batch of many calls for one sliding-window key (a hot key under load) as a decision script gets it from the batcher,
 * for a ring of one window and for a key of several windows: after the first call, the calls' entries, which all bear
 * the batch's time, are written with one command, the header once, and they are in the ring before any call of the
 * batch reads an entry. Run on a single Redis, whose command counts are exact.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RingBatchTest {

    RedissonClient client;
    ScriptExecutor executor;

    @BeforeAll
    void start() {
        client = SharedRedis.get().newClient();
        executor = new ScriptExecutor(client, Guards.patient());
    }

    @AfterAll
    void stop() {
        client.shutdown();
    }

    /** 24 calls of one key, 100/s and 200/h: 2 SETRANGE (the 24 entries together, then the header). */
    @Test
    void aBatchOfOneKeyWritesItsEntriesOnce() {
        String key = key();
        long before = RedisCommands.commandCalls(client, "setrange");

        List<String> replies = batch(key, Collections.nCopies(24, "4,1,100,1000,200,3600000"));

        assertThat(RedisCommands.commandCalls(client, "setrange") - before).isEqualTo(2);
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
        // refused: allowed - 2, remaining, reset, retry for the second-long window; the hour had room (6 left)
        assertRefusedAfterFourCalls("4,1,4,1000,10,3600000", "4,2,4,1000,10,3600000", 20 + 2 * 10, "-2,0,1000,1000,6");
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
        awaitRedisTime(firstAt + 2_000);

        List<String> second = batch(key, Collections.nCopies(4, spec));

        long secondAt = Long.parseLong(second.get(0).split(",")[1]);
        for (int i = 1; i <= 4; i++) {
            assertThat(second.get(i - 1)).isEqualTo("1," + secondAt + "," + (4 - i) + "," + (6 - i));
        }
        assertThat(entries(key, 20 + 2 * 10, 6))
                .containsExactly(secondAt, secondAt, firstAt, firstAt, secondAt, secondAt);
    }

    /**
     * 24 calls of one ring of one window (100 per hour): the first call reads the header and writes its entry, header
     * and expiry (a window and an eighth); the 23 others neither read nor write the header until the end, where their
     * entries take one command, and the expiry, renewed an eighth of the window ago at most, is not written again.
     */
    @Test
    void aBatchOfOneRingReadsItsHeaderOnceAndWritesItTwice() {
        String key = key();
        long getrange = RedisCommands.commandCalls(client, "getrange");
        long setrange = RedisCommands.commandCalls(client, "setrange");
        long pexpire = RedisCommands.commandCalls(client, "pexpire");

        List<String> replies = batch(key, Collections.nCopies(24, "1,100,3600000,1,0,0"));

        assertThat(RedisCommands.commandCalls(client, "getrange") - getrange).isEqualTo(1);
        assertThat(RedisCommands.commandCalls(client, "setrange") - setrange).isEqualTo(4);
        assertThat(RedisCommands.commandCalls(client, "pexpire") - pexpire).isEqualTo(1);
        long now = Long.parseLong(replies.get(0).split(",")[1]);
        for (int i = 1; i <= 24; i++) {
            assertThat(replies.get(i - 1)).isEqualTo("1," + now + "," + (100 - i));
        }
        assertThat(entries(key, 24, 24)).containsOnly(now).hasSize(24);
        assertThat(client.getBucket(key).remainTimeToLive())
                .isBetween(3_600_000L + 450_000 - 60_000, 3_600_000L + 450_000);
        // what the next script call reads: 76 left
        assertThat(remaining(batch(key, List.of("1,100,3600000,0,0,0")).get(0))).isEqualTo(76);
    }

    /**
     * A ring of 4 (4 per second) takes four calls, then a call of cost 2 is refused: the entry that must leave first is
     * the second call's, kept to be written with the others, so it is written before it is read.
     */
    @Test
    void aRefusalReadsAnEntryOfItsRingTakenEarlierInTheBatch() {
        assertRefusedAfterFourCalls("1,4,1000,1,0,0", "1,4,1000,2,0,0", 24, "-2,0,1000,1000");
    }

    /**
     * A ring of 4 slots: two calls, then, once they have left the window, four more: the first of them writes slot 2,
     * the three kept ones slots 3, 0 and 1 (wrapping), and the ring stays 4 slots long.
     */
    @Test
    void entriesOfOneRingKeptToBeWrittenWrapAroundIt() {
        String key = key();
        String spec = "1,4,1000,1,0,0";
        long firstAt =
                Long.parseLong(batch(key, Collections.nCopies(2, spec)).get(0).split(",")[1]);
        awaitRedisTime(firstAt + 1_000);

        List<String> second = batch(key, Collections.nCopies(4, spec));

        long secondAt = Long.parseLong(second.get(0).split(",")[1]);
        for (int i = 1; i <= 4; i++) {
            assertThat(second.get(i - 1)).isEqualTo("1," + secondAt + "," + (4 - i));
        }
        assertThat(entries(key, 24, 4)).containsOnly(secondAt);
        assertThat(client.getBucket(key, ByteArrayCodec.INSTANCE).size()).isEqualTo(24 + 4 * 6);
    }

    /**
     * Calls of two rings interleaved in one batch (A, A, B, A, B, A), 3 per hour each: a call of another ring writes out
     * what was kept for the first, so each is counted exactly, in this batch and in the next.
     */
    @Test
    void interleavedRingsInOneBatchAreEachCountedExactly() {
        String a = key();
        String b = key();
        String spec = "1,3,3600000,1,0,0";
        List<String> keys = List.of(a, a, b, a, b, a);

        List<String> replies = batch(keys, Collections.nCopies(6, spec));

        long now = Long.parseLong(replies.get(0).split(",")[1]);
        assertThat(replies)
                .containsExactly(
                        "1," + now + ",2",
                        "1," + now + ",1",
                        "1," + now + ",2",
                        "1," + now + ",0",
                        "1," + now + ",1",
                        "0," + now + ",-2,0,3600000,3600000");
        List<String> next = batch(List.of(a, b), List.of("1,3,3600000,0,0,0", "1,3,3600000,0,0,0"));
        assertThat(remaining(next.get(0))).isZero();
        assertThat(remaining(next.get(1))).isEqualTo(1);
    }

    /**
     * One batch of four calls of spec `taken`, then one of spec `refused` on the same key: the last is refused with
     * `answers` (after its decision time), and the four entries, written from byte `base`, all bear the batch's time.
     */
    private void assertRefusedAfterFourCalls(String taken, String refused, int base, String answers) {
        String key = key();
        List<String> specs = new ArrayList<>(Collections.nCopies(4, taken));
        specs.add(refused);

        List<String> replies = batch(key, specs);

        long now = Long.parseLong(replies.get(0).split(",")[1]);
        assertThat(replies.get(4)).isEqualTo("0," + now + "," + answers);
        assertThat(entries(key, base, 4)).containsOnly(now).hasSize(4);
    }

    /** The remaining count of a one-key call's reply (alone, or the second of four values). */
    private static long remaining(String reply) {
        String[] values = reply.split(",");
        return Long.parseLong(values.length == 3 ? values[2] : values[3]);
    }

    private void awaitRedisTime(long epochMs) {
        RedisCommands.awaitTimeMs(client, epochMs);
    }

    private static String key() {
        return "batch:{" + UUID.randomUUID() + "}:swm";
    }

    /** One script call of one call per spec, all for `key`; returns each call's reply. */
    private List<String> batch(String key, List<String> specs) {
        return batch(Collections.nCopies(specs.size(), key), specs);
    }

    /** One script call of one call per key, with the spec at the same place; returns each call's reply. */
    private List<String> batch(List<String> callKeys, List<String> specs) {
        List<Object> keys = new ArrayList<>(callKeys);
        List<Object> args = new ArrayList<>();
        args.add(Integer.toString(specs.size()));
        for (String spec : specs) {
            args.add("1");
            args.add(spec);
        }
        List<String> replies = new ArrayList<>();
        for (Object reply :
                executor.call(new DecisionScripts().forCall(List.of("1", specs.get(0))), keys, args.toArray())) {
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
