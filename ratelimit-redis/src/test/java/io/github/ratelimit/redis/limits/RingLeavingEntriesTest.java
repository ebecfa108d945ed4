package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

/**
 * Entries leaving a sliding window since the last admission: the decision scripts read up to 16 of the oldest live entries
 * with one command and bisects them, and gallops over single entries past those. A ring of 40 (40 per second) takes
 * `older` entries at once, then `newer` half a second later; once the first have left, a call of cost 0 must count
 * exactly the newer ones: the new oldest entry inside the span, past it, and in a span cut short by the ring's end.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RingLeavingEntriesTest {

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

    @Test
    void theNewOldestEntryInsideTheSpan() {
        assertCountsTheNewerOnly("1,40,1000,%d,0,0", 0, 10, 10);
    }

    @Test
    void theNewOldestEntryPastTheSpan() {
        assertCountsTheNewerOnly("1,40,1000,%d,0,0", 0, 20, 5);
    }

    @Test
    void aSpanCutShortByTheRingsEnd() {
        // 30 entries that leave first put the head at slot 30: the older 20 then fill slots 30 to 39 and 0 to 9
        assertCountsTheNewerOnly("1,40,1000,%d,0,0", 30, 20, 5);
    }

    /** The same for a key of several windows (40 per second and 100 per hour): the hour still counts them all. */
    @Test
    void theSameForAKeyOfSeveralWindows() {
        // read in the same reply as the second's count: a later read may come after the newer entries left too
        String reply = assertCountsTheNewerOnly("4,%d,40,1000,100,3600000", 0, 20, 5);
        assertThat(remaining(reply)).containsExactly(40L - 5, 100L - 25);
    }

    /**
     * Takes `first` entries that leave before the test's, then `older`, then `newer` half a second later; once the older
     * have left, a call of cost 0 sees `40 - newer` left. Returns that call's reply. The last call must come while the newer
     * entries are still inside their second; on a machine that stalled past it (half a second of slack), the scenario is
     * run again on a fresh key, up to five times, and the last attempt's timing is asserted.
     */
    private String assertCountsTheNewerOnly(String spec, int first, int older, int newer) {
        for (int attempt = 1; ; attempt++) {
            String key = "leaving:{" + UUID.randomUUID() + "}";
            if (first > 0) {
                long at = decisionTime(call(key, spec.formatted(first)));
                awaitRedisTime(at + 1_000);
            }
            long olderAt = decisionTime(call(key, spec.formatted(older)));
            awaitRedisTime(olderAt + 500);
            long newerAt = decisionTime(call(key, spec.formatted(newer)));
            awaitRedisTime(olderAt + 1_000);

            String reply = call(key, spec.formatted(0));

            boolean newerStillInside = decisionTime(reply) < newerAt + 1_000;
            if (!newerStillInside && attempt < 5) {
                continue; // stalled past the newer entries' second: what the call counts says nothing
            }
            assertThat(decisionTime(reply)).as("the newer entries still inside").isLessThan(newerAt + 1_000);
            assertThat(remaining(reply).get(0)).isEqualTo(40L - newer);
            return reply;
        }
    }

    private String call(String key, String spec) {
        List<Object> reply = executor.call(
                new DecisionScripts().forCall(List.of("1", spec)), List.of(key), new Object[] {"1", "1", spec});
        String answer = String.valueOf(reply.get(0));
        assertThat(answer).as("admitted").startsWith("1,");
        return answer;
    }

    /** The remaining count of each answer of a reply (one value when it has room for a whole window, else four). */
    private static List<Long> remaining(String reply) {
        String[] values = reply.split(",");
        List<Long> remaining = new ArrayList<>();
        for (int i = 2; i < values.length; ) {
            long first = Long.parseLong(values[i]);
            remaining.add(first >= 0 ? first : Long.parseLong(values[i + 1]));
            i += first >= 0 ? 1 : 4;
        }
        return remaining;
    }

    private static long decisionTime(String reply) {
        return Long.parseLong(reply.split(",")[1]);
    }

    private void awaitRedisTime(long epochMs) {
        RedisCommands.awaitTimeMs(client, epochMs);
    }
}
