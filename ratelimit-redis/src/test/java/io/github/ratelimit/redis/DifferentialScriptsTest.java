package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.github.ratelimit.test.support.RedisProcess;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The script of any shape ({@code ratelimit.lua}, the old engine) and the scripts assembled per shape (the new one, a
 * wide shape's with its values in a table) decide the same random calls on one Redis, each on keys of its own, on one
 * clock (the scripts' test clock, moved forward and now and then back): every answer and every key they store must be
 * equal. Calls mix every kind (sliding windows, several windows in one key, fixed windows, token buckets, calendar
 * quotas), options (a share's capacity, a penalty), staggered advice, shadow and check-only keys, widths of 1 to 22
 * keys, costs of 0 to 3, batches of up to 4 calls, and quotas that change between calls.
 *
 * <p>What may differ, and is allowed to: a fixed window's reset and retry, which its scripts read from the key's
 * remaining time to live on Redis's own clock (the two engines write and read a few ms apart), by at most twice the
 * longest step.
 * Holding a slot (flag 8) is not compared: only the new engine holds. {@code -Dratelimit.differential.steps=N} and
 * {@code -Dratelimit.differential.seed=S} run it longer or again.
 */
class DifferentialScriptsTest {

    private static final int STEPS = Integer.getInteger("ratelimit.differential.steps", 1500);
    private static final LuaScript OLD = LuaScript.load("ratelimit", "ring", "ring_multi");
    private static final boolean ALONE = Boolean.getBoolean("ratelimit.differential.alone");
    private static final long SEED = Long.getLong("ratelimit.differential.seed", System.nanoTime());

    /** Reads each key's value (as hex: rings are bytes) and its time to live. */
    private static final String STATE = "local r = {}\n"
            + "for _, k in ipairs(KEYS) do\n"
            + "  local v = redis.call('GET', k)\n"
            + "  r[#r + 1] = v and (v:gsub('.', function(c) return string.format('%02x', c:byte()) end)) or '-'\n"
            + "  r[#r + 1] = tostring(redis.call('PTTL', k))\n"
            + "end\n"
            + "return r";

    /** Deletes each pair of keys (the first half of KEYS and the second) of which one expires within 3 s. */
    private static final String EXPIRING = "local n = #KEYS / 2\n"
            + "for i = 1, n do\n"
            + "  local a, b = redis.call('PTTL', KEYS[i]), redis.call('PTTL', KEYS[n + i])\n"
            + "  if (a >= 0 and a < 3000) or (b >= 0 and b < 3000) then redis.call('DEL', KEYS[i], KEYS[n + i]) end\n"
            + "end\n"
            + "return 0";

    private static RedisProcess redis;
    private static RedissonClient client;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        client = redis.newClient();
    }

    @AfterAll
    static void stop() {
        client.shutdown();
        redis.close();
    }

    /** One limit of the pool: its kind and numbers, changed now and then (a quota that grows or shrinks). */
    private static final class Limit {
        final int index;
        final char algorithm; // 1 sliding, 2 fixed, 3 bucket, 5 calendar, w several windows
        final boolean advice;
        final boolean shadow;
        final boolean options;
        final long penalty;
        int limit;
        int capacity;
        long window;
        long horizon;
        int[] limits = new int[0];
        long[] windows = new long[0];

        Limit(int index, Random random) {
            this.index = index;
            algorithm = "11122335w".charAt(random.nextInt(9));
            window = new long[] {10_000, 60_000, 3_600_000}[random.nextInt(3)];
            limit = 1 + random.nextInt(8);
            if (algorithm == 'w') {
                int n = random.nextInt(10) == 0 ? 2 + random.nextInt(15) : 2 + random.nextInt(3);
                limits = new int[n];
                windows = new long[n];
                for (int j = 0; j < n; j++) {
                    limits[j] = (j == 0 ? 1 : limits[j - 1]) + random.nextInt(6);
                    windows[j] = (j == 0 ? 10_000 : windows[j - 1]) * (2 + random.nextInt(5));
                }
                advice = shadow = options = false;
                penalty = 0;
                return;
            }
            if (algorithm == '5') {
                window = 3_600_000;
            }
            advice = random.nextInt(3) == 0;
            shadow = random.nextInt(10) == 0;
            options = algorithm == '5' || random.nextInt(3) == 0;
            penalty = options && random.nextInt(3) == 0 ? new long[] {5_000, 30_000}[random.nextInt(2)] : 0;
            capacity = options ? limit + random.nextInt(4) : limit;
            horizon = window * (1 + random.nextInt(10));
        }

        String token() {
            if (algorithm == 'w') {
                return "w" + limits.length;
            }
            return algorithm + (options ? "o" : "") + (advice ? "a" : "") + (penalty > 0 ? "p" : "");
        }

        int maxCost() {
            return Math.min(3, algorithm == 'w' ? limits[0] : limit);
        }

        String spec(int cost, boolean checkOnly, long nowMs) {
            if (algorithm == 'w') {
                StringBuilder s = new StringBuilder("4,").append(cost);
                for (int j = 0; j < limits.length; j++) {
                    s.append(',').append(limits[j]).append(',').append(windows[j]);
                }
                return s.toString();
            }
            int flags = (shadow ? 1 : 0) + (advice ? 2 : 0) + (checkOnly ? 4 : 0);
            String text = algorithm + "," + limit + "," + window + "," + cost + "," + flags + "," + horizon;
            if (options) {
                text += "|" + capacity + "," + penalty;
            }
            if (algorithm == '5') { // periods of an hour around the clock
                long start = Math.floorDiv(nowMs, window) * window;
                text += "," + (start - window) + "," + start + "," + (start + window) + "," + (start + 2 * window);
            }
            return text;
        }

        /** Its key names for an identifier: its own, then its advice cursor and penalty box where it has them. */
        List<String> keys(int id) {
            String key = "{d}L" + index + ":" + id;
            List<String> keys = new ArrayList<>(List.of(key));
            if (advice) {
                keys.add(key + ":cursor");
            }
            if (penalty > 0) {
                keys.add(key + ":box");
            }
            return keys;
        }

        int answers() {
            return algorithm == 'w' ? limits.length : 1;
        }

        /** A plan's quota changed: the ceiling moves within the capacity, which may grow. */
        void change(Random random) {
            if (algorithm == 'w') {
                return;
            }
            if (options && random.nextBoolean()) {
                capacity += random.nextInt(4);
            }
            limit = options ? 1 + random.nextInt(capacity) : 1 + random.nextInt(8);
        }
    }

    @Test
    void theOldEngineAndTheNewAnswerAndStoreTheSame() {
        System.out.println("DifferentialScriptsTest seed " + SEED + " (-Dratelimit.differential.seed to run it again)");
        Random random = new Random(SEED);
        RScript script = client.getScript(StringCodec.INSTANCE);
        DecisionScripts assembled = new DecisionScripts();
        Map<String, String> loaded = new HashMap<>();
        List<Limit> pool = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            pool.add(new Limit(i, random));
        }
        Set<String> keysMet = new LinkedHashSet<>();
        Set<String> shapes = new LinkedHashSet<>();
        long now = System.currentTimeMillis();
        int calls = 0;
        int admitted = 0;
        long longestMs = 0;
        for (int step = 0; step < STEPS; step++) {
            now += new long[] {0, 0, 1, 3, 50, 500, 2_000, 9_000, 20_000, 61_000, 400_000, -2}[random.nextInt(12)];
            if (random.nextInt(30) == 0) {
                pool.get(random.nextInt(pool.size())).change(random);
            }
            int width = random.nextInt(20) == 0
                    ? 13 + random.nextInt(10)
                    : random.nextInt(8) == 0 ? 5 + random.nextInt(8) : 1 + random.nextInt(4);
            List<Limit> shape = new ArrayList<>(pool);
            java.util.Collections.shuffle(shape, random);
            shape = shape.subList(0, width);
            int batch = ALONE ? 1 : 1 + random.nextInt(random.nextInt(3) == 0 ? 4 : 1);
            List<String> args = new ArrayList<>(List.of(batch + ";@" + now));
            List<String> keys = new ArrayList<>();
            for (int c = 0; c < batch; c++) {
                args.add(Integer.toString(width));
                for (Limit limit : shape) {
                    args.add(limit.spec(random.nextInt(limit.maxCost() + 1), random.nextInt(10) == 0, now));
                    keys.addAll(limit.keys(random.nextInt(3)));
                }
            }
            keysMet.addAll(keys);
            List<String> oneCall = args.subList(1, 2 + width);
            LuaScript fresh = ALONE
                    ? new LuaScript(
                            "alone",
                            DecisionScripts.tabled(
                                    DecisionScripts.assemble(DecisionScripts.shape(oneCall), true, true)),
                            "",
                            true)
                    : assembled.forShape(DecisionScripts.shape(oneCall));
            assertThat(fresh).as("shape %s", DecisionScripts.shape(oneCall)).isNotSameAs(OLD);
            shapes.add(DecisionScripts.shape(oneCall));

            run(script, loaded, OLD.source(), null, null); // loaded before the clock runs
            run(script, loaded, fresh.source(), null, null);
            List<String> keyList = new ArrayList<>(new LinkedHashSet<>(keys));
            List<Object> both = new ArrayList<>(prefixed("A", keyList));
            both.addAll(prefixed("B", keyList));
            // a key about to expire on Redis's own clock, which the two engines meet a few ms apart: gone from both
            script.eval(RScript.Mode.READ_WRITE, EXPIRING, RScript.ReturnType.LONG, both);
            long started = System.nanoTime();
            List<Object> old = run(script, loaded, OLD.source(), prefixed("A", keys), args);
            List<Object> neu = run(script, loaded, fresh.source(), prefixed("B", keys), args);
            List<Object> state = script.eval(RScript.Mode.READ_ONLY, STATE, RScript.ReturnType.LIST, both);
            // a key's expiry is set on Redis's own clock, by each engine when it writes: they differ by at most the
            // longest step so far (the key may have been written at any earlier step)
            long tookMs = (System.nanoTime() - started) / 1_000_000 + 1;
            longestMs = Math.max(longestMs, tookMs);

            String where = "step " + step + " (seed " + SEED + "), shape " + DecisionScripts.shape(oneCall) + ", "
                    + args + "\nold: " + old + "\nnew: " + neu;
            assertThat(neu).as(where).hasSameSizeAs(old);
            for (int c = 0; c < old.size(); c++) {
                compare((String) old.get(c), (String) neu.get(c), shape, 2 * longestMs, where);
                admitted += ((String) old.get(c)).startsWith("1,") ? 1 : 0;
            }
            calls += batch;
            for (int k = 0; k < keyList.size(); k++) {
                String a = (String) state.get(2 * k);
                String b = (String) state.get(2 * (keyList.size() + k));
                long ttlA = Long.parseLong((String) state.get(2 * k + 1));
                long ttlB = Long.parseLong((String) state.get(2 * (keyList.size() + k) + 1));
                if (!a.equals(b) && fixedCursor(keyList.get(k), pool)) {
                    // advice from a fixed window's retry, read from its time to live (see compare)
                    assertThat(Math.abs(number(a) - number(b)))
                            .as("advice in %s at %s", keyList.get(k), where)
                            .isLessThanOrEqualTo(2 * longestMs);
                } else {
                    assertThat(b).as("value of %s at %s", keyList.get(k), where).isEqualTo(a);
                }
                assertThat(ttlB < 0)
                        .as("expiry of %s at %s", keyList.get(k), where)
                        .isEqualTo(ttlA < 0);
                assertThat(Math.abs(ttlA - ttlB))
                        .as("expiry of %s at %s", keyList.get(k), where)
                        .isLessThanOrEqualTo(3 * longestMs); // a fixed window's advice lives until it, see above
            }
        }
        System.out.printf(
                "DifferentialScriptsTest: %d steps, %d calls (%d admitted), %d shapes, %d keys, equal%n",
                STEPS, calls, admitted, shapes.size(), keysMet.size());
        assertThat(admitted).isPositive().isLessThan(calls);
    }

    private static List<Object> run(
            RScript script, Map<String, String> loaded, String source, List<Object> keys, List<String> args) {
        String sha = loaded.computeIfAbsent(source, script::scriptLoad);
        if (keys == null) {
            return List.of();
        }
        return script.evalSha(RScript.Mode.READ_WRITE, sha, RScript.ReturnType.LIST, keys, args.toArray());
    }

    private static List<Object> prefixed(String prefix, List<String> keys) {
        List<Object> out = new ArrayList<>();
        for (String key : keys) {
            out.add(prefix + key);
        }
        return out;
    }

    /**
     * One call's replies: admitted, time, each answer as four values (the common one, its remaining count alone, is
     * allowed with a whole window to its reset), then the positions whose advice reached the horizon. Equal, but for a
     * fixed window's reset and retry, which may differ by the time the step took.
     */
    private static void compare(String old, String neu, List<Limit> shape, long tookMs, String where) {
        long[] a = parse(old);
        long[] b = parse(neu);
        int i = 2;
        int j = 2;
        assertThat(b[0]).as(where).isEqualTo(a[0]);
        assertThat(b[1]).as(where).isEqualTo(a[1]);
        for (Limit limit : shape) {
            for (int w = 0; w < limit.answers(); w++) {
                long window = limit.algorithm == 'w' ? limit.windows[w] : limit.window;
                long[] x = answer(a, i, window);
                long[] y = answer(b, j, window);
                i += a[i] >= 0 ? 1 : 4;
                j += b[j] >= 0 ? 1 : 4;
                boolean fixed = limit.algorithm == '2';
                for (int f = 0; f < 4; f++) {
                    if (fixed && f >= 2 && Math.abs(x[f] - y[f]) <= tookMs) {
                        continue;
                    }
                    if (x[f] != y[f]) {
                        fail("answer of key L%d differs at %s", limit.index, where);
                    }
                }
            }
        }
        assertThat(java.util.Arrays.copyOfRange(b, j, b.length))
                .as("positions capped at %s", where)
                .isEqualTo(java.util.Arrays.copyOfRange(a, i, a.length));
    }

    private static long[] answer(long[] reply, int at, long window) {
        return reply[at] >= 0
                ? new long[] {1, reply[at], window, 0}
                : new long[] {reply[at] + 2, reply[at + 1], reply[at + 2], reply[at + 3]};
    }

    private static boolean fixedCursor(String key, List<Limit> pool) {
        if (!key.endsWith(":cursor")) {
            return false;
        }
        int index = Integer.parseInt(key.substring("{d}L".length(), key.indexOf(':')));
        return pool.stream().anyMatch(l -> l.index == index && l.algorithm == '2');
    }

    /** A number stored as text, read from its hex. */
    private static long number(String hex) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i + 1 < hex.length(); i += 2) {
            text.append((char) Integer.parseInt(hex.substring(i, i + 2), 16));
        }
        return Long.parseLong(text.toString());
    }

    private static long[] parse(String reply) {
        String[] parts = reply.split(",");
        long[] values = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            values[i] = Long.parseLong(parts[i]);
        }
        return values;
    }
}
