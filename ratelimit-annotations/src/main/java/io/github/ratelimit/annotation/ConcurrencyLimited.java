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
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ConcurrencyLimited {

    /** How many calls of one key may be in progress at once. At least 1. */
    int max();

    /** Whose calls are counted: a SpEL expression as for {@link RateLimited#key()}; by default the client. */
    String key() default "#client";

    /** The limit's name (letters, digits, {@code ._:/-}); default: the class's simple name and the method name. */
    String name() default "";

    /** How long a slot is held without renewal: the longest a crashed instance's call keeps it. At least 100. */
    long leaseMs() default 10_000;

    /** The longest a call keeps its slot, renewals included. At least {@link #leaseMs()}. */
    long maxLifetimeMs() default 300_000;
}
