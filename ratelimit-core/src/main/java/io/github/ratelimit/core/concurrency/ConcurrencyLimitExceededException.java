package io.github.ratelimit.core.concurrency;

import java.time.Duration;

/** A call refused because {@code max} calls of its key were already in progress. */
public class ConcurrencyLimitExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String name;
    private final int max;
    private final transient Duration retryAfter;

    public ConcurrencyLimitExceededException(String name, int max, Duration retryAfter) {
        super("Concurrency limit '" + name + "' of " + max + " calls in progress reached");
        this.name = name;
        this.max = max;
        this.retryAfter = retryAfter;
    }

    /** The limit's name. */
    public String name() {
        return name;
    }

    /** How many calls may be in progress at once. */
    public int max() {
        return max;
    }

    /** When trying again makes sense: calls end whenever they end, so this is a hint, at least 1 s. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
