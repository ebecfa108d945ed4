package io.github.ratelimit.redis.limits;

import org.jspecify.annotations.Nullable;

/**
 * The application's guess of Redis's clock, used for one thing: naming the periods around it that a calendar quota's
 * decision sends (see {@code RateLimitScriptCodec}), among which the script chooses by Redis's own {@code TIME}. The
 * guess is the Redis time of the last decision plus the JVM's monotonic time since then; the JVM's wall clock is never
 * read. Until a decision has told a Redis time, there is no guess, and a calendar quota's decision asks Redis for its
 * time first.
 */
final class RedisClock {

    /** A Redis time and the monotonic time it was seen at. */
    private record Seen(long redisMs, long nanos) {}

    private volatile @Nullable Seen seen;

    /** Redis's time as a decision told it. */
    void saw(long redisMs) {
        seen = new Seen(redisMs, System.nanoTime());
    }

    /** Whether a Redis time was seen. */
    boolean known() {
        return seen != null;
    }

    /** The guess of Redis's time now (only when {@link #known()}). */
    long guess() {
        Seen last = java.util.Objects.requireNonNull(seen, "Redis's time is not known yet");
        return last.redisMs() + (System.nanoTime() - last.nanos()) / 1_000_000;
    }
}
