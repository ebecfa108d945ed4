package io.github.ratelimit.test.kit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a deadline, checking it every few milliseconds: the tests' one way to wait for a state. */
public final class Poll {

    private static final long PAUSE_MS = 5;

    private Poll() {}

    /** Returns once {@code condition} holds; fails with "not {@code what} within {@code within}" when it never does. */
    public static void until(String what, Duration within, BooleanSupplier condition) {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not " + what + " within " + within);
            }
            try {
                Thread.sleep(PAUSE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            }
        }
    }
}
