package io.github.ratelimit.redis.internal;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * The timer of the non-blocking calls: budgets and the pauses between lock attempts. A hashed wheel (Netty's, which
 * Redisson brings): scheduling and cancelling take no lock, so the event loop that sends a call or completes one never
 * parks on a timer queue, as it could on the JDK's scheduled executors. One daemon thread for the JVM, started at once;
 * 5 ms ticks, so a budget ends at most a tick late.
 */
public final class BudgetTimer {

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
    public static void ready() {
        // loading the class started it
    }

    /** The moment a call starts, for {@link #untilNearlyOver}. */
    public static long startOfCall() {
        return System.nanoTime();
    }

    /** Runs the task on the timer's thread after the delay, unless the returned timeout is cancelled first. */
    public static Timeout after(Duration delay, Runnable task) {
        return TIMER.newTimeout(timeout -> task.run(), Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
    }

    /**
     * Completes with {@code result} when {@code work} completes (however it ends) or when nine tenths of the budget since
     * {@code started} have passed, whichever comes first: follow-up work that the call's answer waits for, but never
     * past its budget.
     */
    public static <T> CompletableFuture<T> untilNearlyOver(
            Duration budget, long started, CompletableFuture<?> work, T result) {
        CompletableFuture<T> done = new CompletableFuture<>();
        work.whenComplete((ignored, error) -> done.complete(result));
        long left = budget.toNanos() * 9 / 10 - (System.nanoTime() - started);
        if (left <= 0) {
            done.complete(result);
        } else if (!done.isDone()) {
            after(Duration.ofNanos(left), () -> done.complete(result));
        }
        return done;
    }

    /**
     * Settles a call once, whichever comes first: its answer ({@code onAnswer}, on the thread that completes it), or
     * the end of {@code limit} (then the call is cancelled, so that what has not been sent yet is never sent, and
     * {@code onTimeout} runs on the timer's thread).
     */
    public static <T> void within(
            CompletableFuture<T> call,
            Duration limit,
            Runnable onTimeout,
            BiConsumer<? super T, ? super Throwable> onAnswer) {
        AtomicBoolean settled = new AtomicBoolean();
        Timeout timer = after(limit, () -> {
            if (settled.compareAndSet(false, true)) {
                call.cancel(false);
                onTimeout.run();
            }
        });
        call.whenComplete((reply, error) -> {
            if (settled.compareAndSet(false, true)) {
                timer.cancel();
                onAnswer.accept(reply, error);
            }
        });
    }
}
