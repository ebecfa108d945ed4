package io.github.ratelimit.redis;

import java.time.Duration;

/** The guard the contract tests use: a budget long enough that a loaded test machine never runs out of it. */
public final class Guards {

    private Guards() {}

    /** 5 s per call, open after 5 failures in a row, for 1 s. */
    public static RedisGuard patient() {
        return new RedisGuard(Duration.ofSeconds(5), 5, Duration.ofSeconds(1));
    }
}
