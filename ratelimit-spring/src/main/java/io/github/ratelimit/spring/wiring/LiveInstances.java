package io.github.ratelimit.spring.wiring;

/**
 * How many instances of the application are live, as the store counts them: local limits divide a limit by it while
 * Redis cannot decide. Without a bean of it, {@code ratelimit.local-limits.instances} is assumed.
 */
@FunctionalInterface
public interface LiveInstances {

    /** The live instances now, at least 1. */
    int count();
}
