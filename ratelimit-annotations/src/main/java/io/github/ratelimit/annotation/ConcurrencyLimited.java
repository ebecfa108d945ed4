package io.github.ratelimit.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * At most {@link #max()} calls of a key in progress at once, across every instance sharing one Redis: a slot is taken
 * when the call starts and given back exactly once when it ends (returns, throws, or, for a publisher, completes,
 * fails or is cancelled). A slot is a lease renewed while the call runs, so the slots of a crashed instance come back
 * within {@link #leaseMs()}. A refused call gets {@code ConcurrencyLimitExceededException} (HTTP 429 with
 * {@code Retry-After} and a {@code RateLimit-Policy} item with {@code qu="concurrent-requests"}). {@code @Locked} is
 * the case {@code max = 1} with fencing tokens and waiting.
 *
 * <p>With {@link #adaptive()}, the limit is learnt from the latency of the calls, one limit for every instance: it
 * starts at {@link #initial()}, doubles window after window until the calls queue, then holds where their latency stays
 * within {@link #tolerance()} times the no-load latency, between {@link #min()} and {@link #max()}. A call that throws
 * (or, for a publisher, fails or is cancelled) is a drop, never a fast sample; drops back the limit off. docs/adaptive.md
 * says when to pick it over a fixed {@code max}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ConcurrencyLimited {

    /**
     * How many calls of one key may be in progress at once; with {@link #adaptive()}, the most the limit reaches. At
     * least 1.
     */
    int max();

    /** Whose calls are counted: a SpEL expression as for {@link RateLimited#key()}; by default the client. */
    String key() default "#client";

    /** The limit's name (letters, digits, {@code ._:/-}); default: the class's simple name and the method name. */
    String name() default "";

    /** How long a slot is held without renewal: the longest a crashed instance's call keeps it. At least 100. */
    long leaseMs() default 10_000;

    /** The longest a call keeps its slot, renewals included. At least {@link #leaseMs()}. */
    long maxLifetimeMs() default 300_000;

    /**
     * Whether the limit adapts to the latency of the calls, one limit for every instance sharing the store, between
     * {@link #min()} and {@link #max()}; false: exactly {@link #max()}.
     */
    boolean adaptive() default false;

    /** An adaptive limit's lowest value. At least 1, at most {@link #max()}. */
    int min() default 1;

    /** Where an adaptive limit starts, from {@link #min()} to {@link #max()}; 0: at {@link #min()}. */
    int initial() default 0;

    /**
     * The latency an adaptive limit tolerates, as a multiple of the no-load latency (the lowest it measured): more than
     * 1, at most 10. The limit aims at a quarter of the way there, and shrinks when more than 1 % of a window's calls
     * take longer.
     */
    double tolerance() default 2.0;

    /**
     * An adaptive limit's sampling window in ms: it moves once per window, from what every instance measured in it. At
     * least 10; a window should see many calls end (a few dozen at least).
     */
    long windowMs() default 1_000;
}
