package io.github.ratelimit.redis.limits;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Refusals served in the JVM: when Redis refuses a (limit, identifier, cost) and says when it could next admit it,
 * further calls for that same pair are refused here until then, without a Redis call. A flood against one exhausted
 * limit then costs Redis a handful of script calls per second instead of one per request.
 *
 * <p>It never refuses a call Redis would admit: the deadline is the local monotonic time at which the refused request
 * was <em>sent</em> plus the retry time Redis computed from its own later clock, so latency can only make the local
 * deadline earlier; counts only go down by time or by a reset, and a reset drops the entries at once on every
 * instance. Entries are keyed by everything that makes a budget (the Redis key: name, algorithm, limit, window,
 * identifier; the limit again, which a plan's key does not carry, so that an upgraded caller asks Redis at once; and
 * the cost). Shadow requests never refuse, and refusals with staggered advice are not served here:
 * their advice needs the cursor in Redis. Bounded (Caffeine); an entry expires at its deadline.
 */
final class LocalRefusals {

    /** A budget as refused: the Redis key, the quota (a plan's key does not carry it) and the cost. */
    private record Pair(String redisKey, long limit, long cost) {}

    /**
     * Redis's retry times can be up to 2 ms longer than needed (the decision time is whole milliseconds, and the fixed
     * window adds 2 ms for PTTL), so the local deadline is that much earlier: it never outlasts Redis's refusal.
     */
    private static final long SLACK_NANOS = 2_000_000;

    /**
     * When the pair may be admitted again (monotonic nanos); when the request was sent, the Redis time of the refusal
     * and the Redis time it named for a retry (for the answer).
     */
    private record Refusal(long deadlineNanos, long sentNanos, long redisMillis, long retryAtRedisMillis) {}

    private final Cache<Pair, Refusal> refusals;

    /** Counts resets heard: a refusal whose request was on its way while a reset was heard is not kept. */
    private final java.util.concurrent.atomic.AtomicLong resets = new java.util.concurrent.atomic.AtomicLong();

    LocalRefusals(long maxEntries) {
        this.refusals = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .executor(Runnable::run) // see RedisKeys
                .expireAfter(new Expiry<Pair, Refusal>() {
                    @Override
                    public long expireAfterCreate(Pair key, Refusal value, long currentTime) {
                        return Math.max(0, value.deadlineNanos() - currentTime);
                    }

                    @Override
                    public long expireAfterUpdate(Pair key, Refusal value, long currentTime, long currentDuration) {
                        return Math.max(0, value.deadlineNanos() - currentTime);
                    }

                    @Override
                    public long expireAfterRead(Pair key, Refusal value, long currentTime, long currentDuration) {
                        return currentDuration;
                    }
                })
                .build();
    }

    /**
     * A refusal of the call served locally, or null when none of its enforced pairs is known to be over its limit.
     * The decision lists the locally refused requests only, with 0 remaining and the time left as retry.
     *
     * @param byKey the call's requests by their Redis key, in order
     */
    @Nullable
    Decision refuse(Map<String, LimitRequest> byKey, long nowNanos) {
        if (refusals.estimatedSize() == 0) {
            return null; // the common case of an admitted call: nothing to look up
        }
        List<LimitOutcome> refused = null;
        long redisMillis = 0;
        for (Map.Entry<String, LimitRequest> entry : byKey.entrySet()) {
            LimitRequest request = entry.getValue();
            if (request.shadow() || request.staggered() || request.cost() == 0) {
                continue;
            }
            Refusal refusal = refusals.getIfPresent(
                    new Pair(entry.getKey(), request.limit().ceiling(), request.cost()));
            if (refusal == null || refusal.deadlineNanos() - nowNanos <= 0) {
                continue;
            }
            if (refused == null) {
                refused = new ArrayList<>(1);
            }
            // the answer names the retry time Redis named, counted from this refusal's place on Redis's clock
            long decidedAt = refusal.redisMillis() + (nowNanos - refusal.sentNanos()) / 1_000_000;
            Duration left = Duration.ofMillis(Math.max(1, refusal.retryAtRedisMillis() - decidedAt));
            refused.add(new LimitOutcome(request, false, 0, left, left));
            redisMillis = Math.max(redisMillis, decidedAt);
        }
        return refused == null
                ? null
                : Decision.servedLocally(refused, Instant.ofEpochMilli(redisMillis), List.copyOf(byKey.values()));
    }

    /** What to pass to {@link #remember} for a request about to be sent. */
    long resetsHeard() {
        return resets.get();
    }

    /**
     * Remembers the enforced, non-staggered refusals of a decision Redis made for requests sent at {@code sent}, unless
     * a reset was heard since they were sent (Redis may have refused before the reset took effect).
     *
     * @param byKey the call's requests by their Redis key, in the order of the decision's outcomes
     * @param resetsWhenSent {@link #resetsHeard()} just before the requests were sent
     */
    void remember(Decision decision, Map<String, LimitRequest> byKey, long sentNanos, long resetsWhenSent) {
        if (resets.get() != resetsWhenSent) {
            return;
        }
        Iterator<String> keys = byKey.keySet().iterator();
        for (LimitOutcome outcome : decision.outcomes()) {
            String key = keys.next();
            LimitRequest request = outcome.request();
            if (outcome.allowed() || request.shadow() || request.staggered() || request.cost() == 0) {
                continue;
            }
            long retry = outcome.retryAfter().toNanos();
            if (retry <= SLACK_NANOS) {
                continue;
            }
            long redisMillis = decision.decidedAt().toEpochMilli();
            refusals.put(
                    new Pair(key, request.limit().ceiling(), request.cost()),
                    new Refusal(
                            sentNanos + retry - SLACK_NANOS,
                            sentNanos,
                            redisMillis,
                            redisMillis + outcome.retryAfter().toMillis()));
        }
    }

    /** Forgets every refusal: the counts were deleted. */
    void forgetAll() {
        resets.incrementAndGet();
        refusals.invalidateAll();
    }

    /** Forgets every refusal of one Redis key (any cost): its counts were reset. */
    void forget(String redisKey) {
        resets.incrementAndGet();
        refusals.asMap().keySet().removeIf(pair -> pair.redisKey().equals(redisKey));
    }

    /** The JVM's monotonic clock, which times local refusals only (never a decision on counts). */
    static long now() {
        return System.nanoTime();
    }
}
