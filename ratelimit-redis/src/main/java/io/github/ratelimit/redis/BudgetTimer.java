package io.github.ratelimit.redis;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The timer of the non-blocking calls: budgets and the pauses between lock attempts. A hashed wheel (Netty's, which
 * Redisson brings): scheduling and cancelling take no lock, so the event loop that sends a call or completes one never
 * parks on a timer queue, as it could on the JDK's scheduled executors. One daemon thread for the JVM, started at once;
 * 5 ms ticks, so a budget ends at most a tick late.
 */
final class BudgetTimer {

    private static final HashedWheelTimer TIMER = start();

    private BudgetTimer() {}

    private static HashedWheelTimer start() {
        HashedWheelTimer timer = new HashedWheelTimer(
                runnable -> {
                    Thread thread = new Thread(runnable, "ratelimit-budget-timer");
                    thread.setDaemon(true);
                    return thread;
                },
                5,
                TimeUnit.MILLISECONDS,
                512);
        timer.start(); // on the thread that loads the class, never later on a caller's
        return timer;
    }

    /** Starts the timer now, on the calling thread (which may wait for its thread to start), if not started yet. */
    static void ready() {
        // loading the class started it
    }

    /** Runs the task on the timer's thread after the delay, unless the returned timeout is cancelled first. */
    static Timeout after(Duration delay, Runnable task) {
        return TIMER.newTimeout(timeout -> task.run(), Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
    }
}
