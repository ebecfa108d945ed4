package io.github.ratelimit.core.internal;

import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import org.jspecify.annotations.Nullable;

/**
 * One step of an adaptive concurrency limit for a whole fleet: from what every instance reported for one sampling
 * window, the limit of the next window. Pure (no clock, no I/O, no randomness), so that the store holding a fleet's
 * limit can run it once per window and the memory store for one instance, and its own tests can drive it window by
 * window. docs/design.md ("Adaptive concurrency limits") states the algorithm and why; in short:
 *
 * <ul>
 *   <li>only calls that completed count as latency samples: refused and dropped calls (timeouts, errors) return at once
 *       and would read as fast, so they never raise the limit;
 *   <li>a window with a tenth or more of its calls dropped decreases the limit multiplicatively (AIMD's backoff);
 *   <li>otherwise a gradient on the no-load latency, aiming at a quarter of the way to the tolerated latency
 *       ({@code tolerance} times the no-load one): beyond 0.35 of the way, the limit shrinks in proportion to the target
 *       over the latency (at most by half a window), and so it does when more than 1 % of the window's calls were slower
 *       than tolerated (by that share: the tail a mean hides); up to 0.15 of the way, and only if the window used its limit, it
 *       grows: it doubles during the slow start, else by at most a tenth (at least by one); in between, it holds, so
 *       that the admitted calls' latency stays within the tolerance;
 *   <li>the slow start ends with the first slow window, and starts again when the limit is at its minimum (an incident
 *       drove it there, or a cold start's first windows were slow) and a window there has room: the capacity is
 *       unknown again;
 *   <li>the no-load latency is the lowest latency seen, raised only by a window that ran at half its limit or less: a
 *       long incident, in which every window is saturated and slow, never moves it upward.
 * </ul>
 */
public final class AdaptiveLimit {

    /** Dropped calls, as a share of a window's completed and dropped calls, from which the limit backs off. */
    static final double DROPPED_SHARE = 0.1;

    /** How much of the limit a window's dropped calls leave. */
    static final double BACKOFF = 0.9;

    /** The most a window may shrink the limit by the gradient: to half. */
    static final double LOWEST_GRADIENT = 0.5;

    /** The most a window grows the limit after the slow start: by a tenth. */
    static final double MOST_GROWTH = 1.1;

    /**
     * The latency the limit aims at, as a share of the way from the no-load latency to the tolerated one: a quarter
     * of the way, so that the calls queued behind the capacity, whose latency is the tail, stay within the tolerance.
     */
    static final double TARGET = 0.25;

    /** Up to this share of the way the limit holds; beyond it, it shrinks towards the target. */
    static final double HOLD_UP_TO = 0.35;

    /** Up to this share of the way a window that used its limit grows it. */
    static final double GROW_UP_TO = 0.15;

    /**
     * The share of a window's completed calls that may be slower than tolerated: more, and the limit shrinks by that
     * share and stops growing, so that the admitted calls' 99th percentile stays within the tolerance with a margin.
     */
    static final double TAIL = 0.01;

    /** A window used its limit when its peak in flight reached this share of it. */
    static final double USED = 0.9;

    /**
     * What the fleet reported for one window.
     *
     * @param completed calls that ended normally: the only latency samples
     * @param latencySumMicros the sum of their latencies
     * @param lowestLatencyMicros the lowest of them (meaningless when {@code completed} is 0)
     * @param slow how many of them took longer than the tolerated latency of when they ended (the tail)
     * @param dropped calls that timed out or failed
     * @param refused calls the limit refused
     * @param peakInFlight the most calls in flight at once, across the fleet
     */
    public record Window(
            long completed,
            long latencySumMicros,
            long lowestLatencyMicros,
            long slow,
            long dropped,
            long refused,
            long peakInFlight) {}

    /**
     * Where the limit stands.
     *
     * @param limit the limit, a fraction kept between windows (the slots are its whole part, at least {@code min})
     * @param noLoadMicros the no-load latency, 0 until a window has measured one
     * @param slowStart whether the limit still doubles (until a window is slower than tolerated or drops calls)
     */
    public record State(double limit, long noLoadMicros, boolean slowStart) {

        /** The slots this limit gives. */
        public int slots() {
            return (int) Math.floor(limit);
        }
    }

    private AdaptiveLimit() {}

    /** The state before the first window: the initial limit, no latency known, in slow start. */
    public static State start(AdaptiveSettings settings) {
        return new State(settings.initial(), 0, true);
    }

    /**
     * The state after a window, under an operator's steering: its bounds replace the declared ones, and its pin holds
     * the limit at its value (the rest of the state moves as without it, so the limit goes on from the pin when it is
     * cleared).
     */
    public static State next(
            AdaptiveSettings settings,
            AdaptiveConcurrencyLimiter.@Nullable Steering steering,
            State state,
            Window window) {
        if (steering == null) {
            return next(settings, state, window);
        }
        State stepped = next(steering.bounds(settings), state, window);
        return steering.pin() == null ? stepped : new State(steering.pin(), stepped.noLoadMicros(), false);
    }

    /** The state after a window; the limit within the settings' bounds, which may have changed since the last. */
    public static State next(AdaptiveSettings settings, State state, Window window) {
        double limit = state.limit();
        long attempted = window.completed() + window.dropped();
        if (window.dropped() > 0 && window.dropped() >= DROPPED_SHARE * attempted) {
            return new State(clamp(settings, limit * BACKOFF), state.noLoadMicros(), false);
        }
        if (window.completed() == 0) {
            // only refusals or drops: nothing was measured, and nothing may rise
            return new State(clamp(settings, limit), state.noLoadMicros(), state.slowStart());
        }
        long noLoad = noLoad(state, window);
        double recent = (double) window.latencySumMicros() / window.completed();
        // how far the window's latency went from the no-load latency towards the tolerated one: 0 no queue, 1 there
        double way = (recent / noLoad - 1) / (settings.tolerance() - 1);
        double target = noLoad * (1 + (settings.tolerance() - 1) * TARGET);
        // the calls slower than tolerated: the tail the latency's mean hides, calls queued behind the capacity
        double tail = (double) window.slow() / window.completed();
        if (way > HOLD_UP_TO || tail > TAIL) {
            double gradient = Math.max(LOWEST_GRADIENT, Math.min(target / recent, 1 - tail));
            return new State(clamp(settings, limit * gradient), noLoad, false);
        }
        boolean used = window.peakInFlight() >= USED * Math.floor(limit);
        if (!used || way > GROW_UP_TO) {
            return new State(clamp(settings, limit), noLoad, state.slowStart()); // unused, or at the target: hold
        }
        // at the minimum (an incident drove it there, or the first windows of a cold start were slow) with room: the
        // capacity is unknown again, and the limit starts again as it started, doubling until a window is slow; growing
        // by one a window from there would take as many windows as the capacity is large
        boolean doubling = state.slowStart() || limit <= settings.min();
        double grown = doubling ? limit * 2 : Math.max(limit + 1, limit * Math.min(MOST_GROWTH, target / recent));
        return new State(clamp(settings, grown), noLoad, doubling);
    }

    /**
     * The no-load latency after a window: its lowest latency if lower, or if the window ran at half its limit or less
     * (at low load, so what it measured is no queue); else unchanged, however slow saturated windows are.
     */
    private static long noLoad(State state, Window window) {
        long lowest = Math.max(1, window.lowestLatencyMicros());
        if (state.noLoadMicros() == 0 || lowest < state.noLoadMicros()) {
            return lowest;
        }
        return window.peakInFlight() * 2 <= Math.floor(state.limit()) ? lowest : state.noLoadMicros();
    }

    private static double clamp(AdaptiveSettings settings, double limit) {
        return Math.max(settings.min(), Math.min(settings.max(), limit));
    }
}
