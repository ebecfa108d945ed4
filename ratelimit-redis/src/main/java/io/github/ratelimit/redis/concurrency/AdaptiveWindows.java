package io.github.ratelimit.redis.concurrency;

import io.github.ratelimit.core.internal.AdaptiveLimit;
import io.github.ratelimit.core.internal.AdaptiveLimit.Settings;
import io.github.ratelimit.core.internal.AdaptiveLimit.State;
import io.github.ratelimit.core.internal.AdaptiveLimit.Window;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.time.Duration;
import java.util.List;
import org.redisson.api.RedissonClient;

/**
 * An adaptive limit's windows in Redis, for the whole fleet (issue 86, under way; docs/design.md "Adaptive concurrency
 * limits"): each instance adds what it measured to the current window ({@link #report}), on Redis's clock, and the
 * first call after a window closed applies {@link AdaptiveLimit}'s step to what every instance reported, once, in one
 * script ({@link #step}). Both keys of a limit share a hash slot. Nothing declares an adaptive limit yet.
 */
final class AdaptiveWindows {

    static final LuaScript REPORT = LuaScript.load(AdaptiveWindows.class, "adaptive_report");
    static final LuaScript STEP = LuaScript.load(AdaptiveWindows.class, "adaptive_step");

    /** The limit after the last window applied. */
    record Step(State state, long lastWindowApplied) {}

    private final ScriptExecutor executor;
    private final String prefix;
    private final Duration window;

    AdaptiveWindows(RedissonClient redisson, String keyPrefix, RedisGuard guard, Duration window) {
        if (window.toMillis() < 1) {
            throw new IllegalArgumentException("an adaptive limit's window must be at least 1 ms, but was " + window);
        }
        this.executor = new ScriptExecutor(redisson, guard);
        this.prefix = new RedisKeys(keyPrefix).prefix();
        this.window = window;
    }

    /** The limit's windows and its state, in one hash slot. */
    List<Object> keys(String name) {
        String tag = prefix + "adaptive:{" + name + "}";
        return List.of(tag + ":windows", tag + ":state");
    }

    /** Adds what this instance measured to the fleet's current window; returns that window's index. */
    long report(String name, Window measured) {
        List<Object> reply = executor.call(REPORT, keys(name).subList(0, 1), new Object[] {
            Long.toString(window.toMillis()),
            Long.toString(measured.completed()),
            Long.toString(measured.latencySumMicros()),
            Long.toString(measured.lowestLatencyMicros()),
            Long.toString(measured.dropped()),
            Long.toString(measured.refused()),
            Long.toString(measured.peakInFlight())
        });
        return ScriptExecutor.number(reply.get(0));
    }

    /** The fleet's limit, after the step of the last closed window (applied now if no instance has yet). */
    Step step(String name, Settings settings) {
        List<Object> reply = executor.call(STEP, keys(name), new Object[] {
            Long.toString(window.toMillis()),
            Integer.toString(settings.min()),
            Integer.toString(settings.max()),
            Integer.toString(settings.initial()),
            Double.toString(settings.tolerance())
        });
        State state = new State(
                Double.parseDouble(String.valueOf(reply.get(0))),
                ScriptExecutor.number(reply.get(1)),
                ScriptExecutor.number(reply.get(2)) == 1);
        return new Step(state, ScriptExecutor.number(reply.get(3)));
    }
}
