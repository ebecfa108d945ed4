package io.github.ratelimit.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method runs only while its caller holds a Redis lock for {@link #key()}: one caller at a time per key,
 * across every instance of the application. Another caller waits up to {@link #waitMs()} and is then refused
 * with {@code LockNotAcquiredException} (HTTP 409 with {@code Retry-After} in a Spring MVC application).
 *
 * <pre>{@code
 * @PostMapping("/api/workers/{userId}")
 * @Locked(name = "worker", key = "#userId", leaseMs = 5_000, maxLifetimeMs = 60_000)
 * Result work(@PathVariable String userId, LockHandle lock) {
 *     store.write(userId, data, lock.fencingToken());
 * }
 * }</pre>
 *
 * <p>While the method runs the lock is renewed every third of {@link #leaseMs()} until the method returns or
 * {@link #maxLifetimeMs()} has passed; after that the lock expires even if the method still runs. A parameter
 * of type {@code LockHandle} tells the method whether it still holds the lock and gives it the fencing token
 * (strictly increasing per key) to pass to storage that must reject stale holders.
 *
 * <p>Re-entrant per thread: a method holding the lock that calls another {@code @Locked} method with the same
 * name and key on the same thread runs at once, under the outer lock (same fencing token, outer lease).
 *
 * <p>A scheduled job runs once per tick across the fleet: without a key the lock is the name alone, a busy lock skips
 * the run (a {@code @Scheduled} method skips by default, see {@link #whenBusy()}), and a minimum hold keeps an instance
 * whose schedule fires a little later from running it again:
 *
 * <pre>{@code
 * @Scheduled(fixedRate = 1_000)
 * @Locked(name = "digest", minHoldMs = 900)
 * void digest() { ... }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {

    /**
     * What to lock: a SpEL expression over the method's parameters, such as {@code #userId}, or a kind of key such as
     * {@code ip}. Empty (the default): the lock is the name alone, one holder across the fleet, as for a job.
     */
    String key() default "";

    /**
     * Groups methods under one lock: methods with the same name and key exclude each other. Letters, digits
     * and {@code . _ - : /}. Default: the declaring class's simple name and the method name.
     */
    String name() default "";

    /** How long the lock lives if its holder vanishes (a crash), in milliseconds. At least 1. */
    long leaseMs() default 10_000;

    /** How long to wait for a busy lock, in milliseconds; 0 fails at once. */
    long waitMs() default 0;

    /**
     * The longest the lock is held while the method runs, renewals included, in milliseconds; at least
     * {@link #leaseMs()}. Equal to it means no renewal.
     */
    long maxLifetimeMs() default 60_000;

    /**
     * How long the lock stays taken after it was taken, even when the method ended sooner, in milliseconds (ShedLock's
     * {@code lockAtLeastFor}); counted on Redis's clock, at most {@link #maxLifetimeMs()}. For a scheduled job, a little
     * under its period: an instance whose schedule fires later in the same tick finds the lock still taken.
     */
    long minHoldMs() default 0;

    /** What a call finds busy does. */
    Busy whenBusy() default Busy.AUTO;

    /**
     * Whether the method's thread is interrupted (a {@code CompletionStage} cancelled, a reactive subscription or a
     * coroutine cancelled) when its lock is lost while it runs: its renewals failed past the lease, its lifetime ended,
     * or an operator released it. Off by default: the method may check its {@code LockHandle} itself.
     */
    boolean interruptOnLoss() default false;

    /** What a call does when the lock stays busy past {@link #waitMs()}. */
    enum Busy {
        /** {@link #SKIP} for a {@code @Scheduled} method, {@link #FAIL} for any other. */
        AUTO,
        /** Refused with {@code LockNotAcquiredException} (HTTP 409 with {@code Retry-After}). */
        FAIL,
        /**
         * Not run, without an error: the method returns {@code null} (an empty {@code Mono} or {@code Flux}, a stage
         * completed with {@code null}); logged at DEBUG and counted as {@code skipped}. For jobs, and methods a job runner
         * calls; a method returning a primitive other than {@code void} cannot skip. A run whose lock cannot be asked
         * for (Redis down) is skipped too, with a WARN once a minute: a run is never made without its lock.
         */
        SKIP
    }
}
