package io.github.ratelimit.core.concurrency;

import io.github.ratelimit.core.internal.Messages;
import java.time.Duration;

/**
 * How an adaptive concurrency limit may move. The limit is one value for every instance sharing a store, changed once
 * per {@code window} from the latencies and outcomes every instance reported for it (docs/adaptive.md says how and
 * when to pick one over a fixed limit).
 *
 * @param min the lowest the limit goes, at least 1
 * @param max the highest, at least {@code min}
 * @param initial where a new limit starts, from {@code min} to {@code max}
 * @param tolerance the latency tolerated, as a multiple of the no-load latency: more than 1 and at most 10. The limit
 *     aims at a quarter of the way there, and shrinks when more than 1 % of a window's calls take longer
 * @param window how long one sampling window lasts, at least 10 ms: a window should see many calls end, so a few
 *     times the dependency's usual latency at least
 */
public record AdaptiveSettings(int min, int max, int initial, double tolerance, Duration window) {

    /** What the annotation defaults to: a tolerated latency of twice the no-load latency. */
    public static final double DEFAULT_TOLERANCE = 2.0;

    /** The default sampling window. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(1);

    public AdaptiveSettings {
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
                    "tolerance must be more than 1 and at most 10 (times the no-load latency), but was " + tolerance);
        }
        if (window == null || window.toMillis() < 10) {
            throw new IllegalArgumentException(Messages.atLeast("window", "10 ms", window));
        }
    }
}
