package io.github.ratelimit.core.internal;

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
 *   <li>otherwise a gradient on the no-load latency: above {@code tolerance} times it, the limit shrinks in proportion
 *       (at most by half a window); below 0.8 of the way to it, and only if the window used its limit, the limit grows:
 *       it doubles during the slow start and whenever the latency shows no queue at all (within a quarter of the way),
 *       else by at most a tenth; in between, it holds;
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

    /** A window used its limit when its peak in flight reached this share of it. */
    static final double USED = 0.9;

    /**
     * How an adaptive limit may move.
     *
     * @param min the lowest the limit goes, at least 1
     * @param max the highest, at least {@code min}
     * @param initial where it starts, from {@code min} to {@code max}
     * @param tolerance the latency tolerated, as a multiple of the no-load latency, more than 1 and at most 10
     */
    public record Settings(int min, int max, int initial, double tolerance) {

        public Settings {
            if (min < 1) {
                throw new IllegalArgumentException(Messages.atLeast("min", 1, min));
            }
            if (max < min) {
                throw new IllegalArgumentException("max must be at least min " + min + ", but was " + max);
            }
            if (initial < min || initial > max) {
                throw new IllegalArgumentException(
                        "initial must be from min " + min + " to max " + max + ", but was " + initial);
            }
            if (!(tolerance > 1.0) || tolerance > 10.0) {
                throw new IllegalArgumentException(
                        "tolerance must be more than 1 and at most 10 (times the no-load latency), but was "
                                + tolerance);
            }
        }
    }

    /**
     * What the fleet reported for one window.
     *
     * @param completed calls that ended normally: the only latency samples
     * @param latencySumMicros the sum of their latencies
     * @param lowestLatencyMicros the lowest of them (meaningless when {@code completed} is 0)
     * @param dropped calls that timed out or failed
     * @param refused calls the limit refused
     * @param peakInFlight the most calls in flight at once, across the fleet
     */
    public record Window(
            long completed,
            long latencySumMicros,
            long lowestLatencyMicros,
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
    public static State start(Settings settings) {
        return new State(settings.initial(), 0, true);
    }

    /** The state after a window. */
    public static State next(Settings settings, State state, Window window) {
        double limit = state.limit();
        long attempted = window.completed() + window.dropped();
        if (window.dropped() > 0 && window.dropped() >= DROPPED_SHARE * attempted) {
            return new State(clamp(settings, limit * BACKOFF), state.noLoadMicros(), false);
        }
        if (window.completed() == 0) {
            return state; // only refusals or drops: nothing was measured, and nothing may rise
        }
        long noLoad = noLoad(state, window);
        double recent = (double) window.latencySumMicros() / window.completed();
        double tolerated = settings.tolerance() * noLoad;
        if (recent > tolerated) {
            double gradient = Math.max(LOWEST_GRADIENT, tolerated / recent);
            return new State(clamp(settings, limit * gradient), noLoad, false);
        }
        boolean used = window.peakInFlight() >= USED * Math.floor(limit);
        double growUpTo = noLoad * (1 + (settings.tolerance() - 1) * 0.8);
        if (!used || recent > growUpTo) {
            return new State(limit, noLoad, state.slowStart()); // unused, or close to the tolerance: hold
        }
        // no queue at all (within a quarter of the tolerance): double, as in the slow start, so that a limit an
        // incident drove down finds the capacity again in a few windows
        boolean unqueued = recent <= noLoad * (1 + (settings.tolerance() - 1) * 0.25);
        double grown = state.slowStart() || unqueued
                ? limit * 2
                : Math.max(limit + 1, limit * Math.min(MOST_GROWTH, tolerated / recent));
        return new State(clamp(settings, grown), noLoad, state.slowStart());
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

    private static double clamp(Settings settings, double limit) {
        return Math.max(settings.min(), Math.min(settings.max(), limit));
    }
}
