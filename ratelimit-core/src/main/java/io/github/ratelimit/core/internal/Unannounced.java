package io.github.ratelimit.core.internal;

import java.util.function.Supplier;

/**
 * Work whose events no listener is told: the starter's warm-up at start, whose decisions are the library's own and
 * not the application's. Holds for what starts on the calling thread while the work runs.
 */
public final class Unannounced {

    private static final ThreadLocal<Boolean> RUNNING = new ThreadLocal<>();

    private Unannounced() {}

    /** Runs the work with its events withheld from every listener. */
    public static <T> T run(Supplier<T> work) {
        Boolean before = RUNNING.get();
        RUNNING.set(Boolean.TRUE);
        try {
            return work.get();
        } finally {
            if (before == null) {
                RUNNING.remove();
            }
        }
    }

    /** Whether the calling thread runs work whose events are withheld. */
    public static boolean now() {
        return RUNNING.get() != null;
    }
}
