package io.github.ratelimit.test.support;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The machine's own stalls while a test measures elapsed time: a thread that asks to sleep one millisecond, again and
 * again, and keeps the worst lateness with which it woke. A test that bounds a wall-clock time bounds it by its budget
 * plus what this machine lost meanwhile ({@link #allowing}), so a busy machine (another build beside this one, a
 * collection, a descheduled process) moves the bound with it and not the verdict, while a call that really waits for a
 * timeout it should not (seconds, not the stalls' milliseconds) still fails.
 *
 * <pre>{@code
 * try (Stalls stalls = Stalls.watch()) {
 *     long ms = ...; // what the test measured
 *     assertThat(ms).isLessThanOrEqualTo(stalls.allowing(500));
 * }
 * }</pre>
 */
public final class Stalls implements AutoCloseable {

    /** What a wait's own bookkeeping may add beyond the stalls seen (a thread woken, a reply read). */
    private static final long SLACK_MS = 50;

    private final AtomicLong worstNanos = new AtomicLong();
    private final Thread sampler;
    private volatile boolean watching = true;

    private Stalls() {
        sampler = new Thread(this::sample, "stalls-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    /** Starts watching; close to stop. */
    public static Stalls watch() {
        return new Stalls();
    }

    /**
     * A latency budget for a test that must see calls answered in time while Redis answers, and run out of it while
     * Redis is frozen: {@code base} plus four times the worst stall this machine shows over a third of a second, at
     * most {@code base} plus two seconds. A test that freezes Redis freezes it for longer than the budget it got.
     */
    public static Duration budget(Duration base) {
        try (Stalls stalls = watch()) {
            Thread.sleep(333);
            return base.plusMillis(Math.min(2_000, 4 * stalls.worstMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return base;
        }
    }

    private void sample() {
        while (watching) {
            long asked = System.nanoTime();
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
            long late = System.nanoTime() - asked - TimeUnit.MILLISECONDS.toNanos(1);
            worstNanos.accumulateAndGet(late, Math::max);
        }
    }

    /** The worst lateness seen so far, in milliseconds. */
    public long worstMillis() {
        return TimeUnit.NANOSECONDS.toMillis(worstNanos.get());
    }

    /**
     * A budget in milliseconds, plus twice the worst stall seen so far (the measured thread and the thread that
     * answers it may each have been stalled) and a small slack.
     */
    public long allowing(long budgetMillis) {
        return budgetMillis + 2 * worstMillis() + SLACK_MS;
    }

    @Override
    public void close() {
        watching = false;
        sampler.interrupt();
    }

    @Override
    public String toString() {
        return "worst stall " + worstMillis() + " ms";
    }
}
