package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.local.LocalRateLimiter;
import io.github.ratelimit.local.LocalRateLimiters;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.test.support.RedisProcess;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * A property test of the scripts against {@link LocalRateLimiter}, the in-memory algorithms that decide while Redis
 * cannot: random calls and credits go to the assembled scripts on one Redis, with the scripts' test clock, and to a
 * local limiter on the same clock (moved forward by random steps). Calls mix sliding windows, several windows of one
 * name in one key (2 to 16), and token buckets; widths of 1 to 6 keys, batches of up to 3 calls in one script call, costs of 0 to
 * 3, shadow and check-only keys, and quotas that change between calls.
 *
 * <p>The test clock moves at least as fast as Redis's own (which expires keys), and by steps of 5 ms to 400 s.
 *
 * <p>The answers the two must share, per call and per limit (a key of several windows answers per window):
 * <ul>
 *   <li>whether the call is admitted, and whether each limit had room: equal;
 *   <li>what is left, counted at 0 at least (a quota shrunk below what was counted is refused by both; the script says
 *       by how much, the local limiter 0): equal;
 *   <li>the wait of a refusal: equal for a sliding window, within 1 ms for a token bucket (the script keeps its time in
 *       whole microseconds, the local limiter in nanoseconds);
 *   <li>the reset of a limit that took the call's cost, or refused it: the same, within 1 ms for a token bucket;
 *   <li>the units a credit granted: equal.
 * </ul>
 * Not shared, and not compared: the reset of a limit that had room but took nothing (the call was refused by another,
 * or only checked): the script answers what the take would have made it, the local limiter what it is. Fixed windows
 * and calendar quotas are not part of it: the scripts time them by their key's expiry, on Redis's own clock, which the
 * test clock does not move (the contracts cover them). Holding a slot, advice, penalties and shares are the scripts'
 * alone. {@code -Dratelimit.property.steps=N} and {@code -Dratelimit.property.seed=S} run it longer or again.
 */
class ScriptsAgreeWithLocalTest {

    private static final int STEPS = Integer.getInteger("ratelimit.property.steps", 2_000);
    private static final long SEED = Long.getLong("ratelimit.property.seed", System.nanoTime());

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

    /** One limit of the pool: its kind and numbers; a quota that changes now and then. */
    private static final class Limit {
        final int index;
        final char kind; // 1 sliding window, 3 token bucket, w several sliding windows of one name
        final boolean shadow;
        final long window;
        int limit;
        final int[] limits;
        final long[] windows;

        Limit(int index, Random random) {
            this.index = index;
            kind = "1113w".charAt(random.nextInt(5));
            window = new long[] {10_000, 60_000, 3_600_000}[random.nextInt(3)];
            limit = 1 + random.nextInt(8);
            shadow = kind != 'w' && random.nextInt(10) == 0;
            // up to 16 windows, the most one key counts
            int n = kind != 'w' ? 0 : random.nextInt(6) == 0 ? 5 + random.nextInt(12) : 2 + random.nextInt(3);
            limits = new int[n];
            windows = new long[n];
            for (int j = 0; j < n; j++) {
                limits[j] = (j == 0 ? 1 : limits[j - 1]) + random.nextInt(6);
                windows[j] = (j == 0 ? 10_000 : windows[j - 1]) * (n > 4 ? 2 : 2 + random.nextInt(5));
            }
        }

        int maxCost() {
            return Math.min(3, kind == 'w' ? limits[0] : limit);
        }

        String spec(int cost, boolean checkOnly) {
            if (kind == 'w') {
                StringBuilder s = new StringBuilder("4,").append(cost);
                for (int j = 0; j < limits.length; j++) {
                    s.append(',').append(limits[j]).append(',').append(windows[j]);
                }
                return s.toString();
            }
            int flags = (shadow ? 1 : 0) + (checkOnly ? 4 : 0);
            return kind + "," + limit + "," + window + "," + cost + "," + flags + ",0";
        }

        String creditSpec() {
            if (kind == 'w') {
                StringBuilder s = new StringBuilder("4");
                for (long w : windows) {
                    s.append(',').append(w);
                }
                return s.toString();
            }
            return kind + "," + limit + "," + window;
        }

        String key(int id) {
            return "{p}L" + index + ":" + id;
        }

        /** The local limiter's requests: one per window. */
        List<LimitRequest> requests(int id, int cost, boolean checkOnly) {
            List<LimitRequest> requests = new ArrayList<>();
            if (kind == 'w') {
                for (int j = 0; j < limits.length; j++) {
                    RateLimit of = RateLimit.of("L" + index, Algorithm.SLIDING_WINDOW, limits[j], windows[j]);
                    requests.add(LimitRequest.of(of, "id" + id, cost));
                }
                return requests;
            }
            Algorithm algorithm = kind == '1' ? Algorithm.SLIDING_WINDOW : Algorithm.TOKEN_BUCKET;
            LimitRequest request = LimitRequest.of(RateLimit.of("L" + index, algorithm, limit, window), "id" + id, cost)
                    .asShadow(shadow);
            requests.add(checkOnly ? request.checkingOnly() : request);
            return requests;
        }
    }

    @Test
    void theScriptsAndTheLocalLimiterDecideAlike() {
        System.out.println("ScriptsAgreeWithLocalTest seed " + SEED + " (-Dratelimit.property.seed to run it again)");
        Random random = new Random(SEED);
        RScript script = client.getScript(StringCodec.INSTANCE);
        DecisionScripts scripts = TestClock.SCRIPTS; // on the scripts' test clock: the first argument, nowMs
        String credit = DecisionScripts.after("credit", TestClock.PIECE).source();
        Map<String, String> loaded = new HashMap<>();
        List<Limit> pool = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            pool.add(new Limit(i, random));
        }
        long startMs = System.currentTimeMillis();
        long[] nowMs = {startMs};
        // the local limiter's monotonic clock, on the scripts' test clock
        AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
        LocalRateLimiter local = LocalRateLimiters.onClock(100_000, nanos::get);
        Set<String> shapes = new LinkedHashSet<>();
        int calls = 0;
        int admitted = 0;
        int credits = 0;
        long realLast = System.nanoTime();
        for (int step = 0; step < STEPS; step++) {
            long by = new long[] {0, 0, 1, 3, 50, 500, 2_000, 9_000, 20_000, 61_000, 400_000}[random.nextInt(11)];
            // Redis expires keys on its own clock: the test clock moves at least as far as it, and 5 ms more for the
            // step's own script calls, so that no key is gone on Redis's clock while still live on the test clock
            long real = System.nanoTime();
            by = Math.max(by, (real - realLast) / 1_000_000 + 5);
            realLast = real;
            nowMs[0] += by;
            nanos.addAndGet(by * 1_000_000);
            if (random.nextInt(30) == 0) {
                Limit changed = pool.get(random.nextInt(pool.size()));
                changed.limit = 1 + random.nextInt(8);
            }
            String at = "step " + step + " (seed " + SEED + ")";
            if (random.nextInt(12) == 0) {
                Limit limit = pool.get(random.nextInt(pool.size()));
                int id = random.nextInt(3);
                int units = 1 + random.nextInt(3);
                List<Object> keys = List.of("{p}credit:" + step, limit.key(id));
                List<Object> reply = run(
                        script,
                        loaded,
                        credit,
                        keys,
                        List.of(Long.toString(nowMs[0]), "60000", Integer.toString(units), limit.creditSpec()));
                long granted = local.credit(limit.requests(id, 0, false), units);
                if (limit.kind != 'w') {
                    assertThat(Long.parseLong(String.valueOf(reply.get(0))))
                            .as("credit of L%d at %s", limit.index, at)
                            .isEqualTo(granted);
                }
                credits++;
                continue;
            }
            int width = 1 + random.nextInt(random.nextInt(4) == 0 ? 6 : 2);
            List<Limit> shape = new ArrayList<>(pool);
            Collections.shuffle(shape, random);
            shape = shape.subList(0, width);
            int batch = 1 + random.nextInt(random.nextInt(3) == 0 ? 3 : 1);
            List<String> args = new ArrayList<>(List.of(Long.toString(nowMs[0]), Integer.toString(batch)));
            List<Object> keys = new ArrayList<>();
            List<List<LimitRequest>> localCalls = new ArrayList<>();
            for (int c = 0; c < batch; c++) {
                args.add(Integer.toString(width));
                List<LimitRequest> requests = new ArrayList<>();
                for (Limit limit : shape) {
                    int cost = random.nextInt(limit.maxCost() + 1);
                    boolean checkOnly = limit.kind != 'w' && random.nextInt(10) == 0;
                    int id = random.nextInt(3);
                    args.add(limit.spec(cost, checkOnly));
                    keys.add(limit.key(id));
                    requests.addAll(limit.requests(id, cost, checkOnly));
                }
                localCalls.add(requests);
            }
            LuaScript decision = scripts.forCall(args.subList(2, 3 + width));
            shapes.add(decision.name());
            List<Object> replies = run(script, loaded, decision.source(), keys, args);
            assertThat(replies).as(at).hasSize(batch);
            for (int c = 0; c < batch; c++) {
                Decision expected = local.tryAcquire(localCalls.get(c));
                long[] reply = parse((String) replies.get(c));
                String where =
                        at + ", call " + c + " of " + args + ": script " + replies.get(c) + ", local " + expected;
                compare(reply, expected, shape, localCalls.get(c), where);
                admitted += expected.allowed() ? 1 : 0;
                calls++;
            }
        }
        System.out.printf(
                "ScriptsAgreeWithLocalTest: %d steps, %d calls (%d admitted), %d credits, %d shapes: alike%n",
                STEPS, calls, admitted, credits, shapes.size());
        assertThat(admitted).isPositive().isLessThan(calls);
    }

    /** One call's answers against the local decision's outcomes, in the same order (see the class comment). */
    private static void compare(
            long[] reply, Decision expected, List<Limit> shape, List<LimitRequest> requests, String where) {
        assertThat(reply[0] == 1).as("admitted at %s", where).isEqualTo(expected.allowed());
        int at = 2;
        int r = 0;
        for (Limit limit : shape) {
            int answers = limit.kind == 'w' ? limit.limits.length : 1;
            for (int w = 0; w < answers; w++, r++) {
                LimitRequest request = requests.get(r);
                Decision.LimitOutcome outcome = expected.outcomes().get(r);
                long window = request.limit().windowMs();
                long[] answer = reply[at] >= 0
                        ? new long[] {1, reply[at], window, 0}
                        : new long[] {reply[at] + 2, reply[at + 1], reply[at + 2], reply[at + 3]};
                at += reply[at] >= 0 ? 1 : 4;
                String which = "L" + limit.index + (answers > 1 ? " window " + w : "") + " at " + where;
                long slack = limit.kind == '3' ? 1 : 0;
                assertThat(answer[0] == 1).as("room in %s", which).isEqualTo(outcome.allowed());
                assertThat(Math.max(0, answer[1]))
                        .as("remaining in %s", which)
                        .isEqualTo(Math.max(0, outcome.remaining()));
                boolean took = expected.allowed() && outcome.allowed() && !request.checkOnly() && request.cost() > 0;
                if (took || !outcome.allowed()) {
                    assertThat(answer[2])
                            .as("reset in %s", which)
                            .isCloseTo(outcome.resetAfter().toMillis(), org.assertj.core.data.Offset.offset(slack));
                }
                assertThat(answer[3])
                        .as("retry in %s", which)
                        .isCloseTo(outcome.retryAfter().toMillis(), org.assertj.core.data.Offset.offset(slack));
            }
        }
        assertThat(at).as("answers at %s", where).isEqualTo(reply.length);
    }

    private static List<Object> run(
            RScript script, Map<String, String> loaded, String source, List<Object> keys, List<String> args) {
        String sha = loaded.computeIfAbsent(source, script::scriptLoad);
        return script.evalSha(RScript.Mode.READ_WRITE, sha, RScript.ReturnType.LIST, keys, args.toArray());
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
