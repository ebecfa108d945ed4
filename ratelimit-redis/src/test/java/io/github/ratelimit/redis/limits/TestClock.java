package io.github.ratelimit.redis.limits;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.RedisKeys;
import java.time.Instant;
import java.util.List;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Redis's clock as the tests move it: decisions run scripts assembled with {@code test_clock.lua} in place of
 * {@code clock.lua}, which read the time the test sets, standing still until the test moves it. The production scripts
 * read nothing but Redis's {@code TIME}.
 *
 * <p>Redis expires keys on its own clock, which the test cannot move: {@link #moveKeys} shortens the expiries of a
 * client's keys by as much as the test moved the clock, and deletes those whose time ran out, as if that time had
 * passed in Redis too.
 */
final class TestClock {

    /** The tests' clock piece. */
    static final String PIECE = LuaScript.read(TestClock.class, "test_clock.lua");

    /** Scripts that read the tests' clock, shared (each shape assembled once). */
    static final DecisionScripts SCRIPTS = new DecisionScripts(PIECE);

    /** A key's expiry shortened by ARGV[1] ms, or the key deleted when it would have expired by then. */
    private static final String MOVE = "local left = redis.call('PTTL', KEYS[1]) "
            + "if left >= 0 and left <= tonumber(ARGV[1]) then redis.call('DEL', KEYS[1]) "
            + "elseif left > 0 then redis.call('PEXPIRE', KEYS[1], left - tonumber(ARGV[1])) end "
            + "return left";

    private TestClock() {}

    /** The limiters decide with Redis's clock standing at {@code at}. */
    static void stopAt(Instant at, RedisRateLimiter... limiters) {
        long ms = at.toEpochMilli();
        for (RedisRateLimiter limiter : limiters) {
            limiter.decideOnClock(SCRIPTS, Long.toString(ms), ms);
        }
    }

    /** The limiters decide with Redis's own clock again. */
    static void real(RedissonClient client, RedisRateLimiter... limiters) {
        long now = RedisCommands.timeMs(client);
        for (RedisRateLimiter limiter : limiters) {
            limiter.decideOnClock(new DecisionScripts(), null, now);
        }
    }

    /**
     * The keys of one client ({@code id}) live {@code ms} less, as if Redis's clock had moved on that much: a key
     * whose expiry falls within it is deleted. Scanned on every master of a Cluster.
     */
    static void moveKeys(RedissonClient client, String id, long ms) {
        String tag = RedisKeys.tag(ClientIdentifier.of(id));
        List<String> keys = RedisKeys.scan(client, "*" + tag + "*", 10_000);
        RScript script = client.getScript(StringCodec.INSTANCE);
        for (String key : keys) {
            script.eval(key, RScript.Mode.READ_WRITE, MOVE, RScript.ReturnType.LONG, List.of(key), Long.toString(ms));
        }
    }
}
