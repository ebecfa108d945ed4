package io.github.ratelimit.redis.limits;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.redis.internal.RedisKeys;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What one instance keeps in the JVM of Redis's refusals, and what makes it forget: the refusals served locally
 * ({@link LocalRefusals}, none when they are switched off), the announcements of resets between instances
 * ({@link ForgetAnnouncements}), and the count of resets and credits heard, by which a slot held tells that one came
 * after it. A key reset, credited, given back or lifted here is forgotten here and announced to the others; one
 * announced elsewhere is forgotten when heard.
 */
final class KeptRefusals {

    /** The reset announcement that means every key (no key is a single {@code *}). */
    static final String FORGET_ALL = "*";

    private final @Nullable LocalRefusals refusals;
    private final ForgetAnnouncements announcements;

    /** What an announced reset makes this instance forget, made once (asked on every refusal kept). */
    private final Function<String, CompletionStage<?>> onAnnounced = this::forgetAnnounced;

    /** Counts resets and credits heard here (of every key), so that a slot held can tell one came after it. */
    private final AtomicLong resetsHeard = new AtomicLong();

    /** The count of {@link #resetsHeard} at each key's last reset or credit heard, kept long enough for any hold. */
    private final Cache<String, Long> lastResetOf = Caffeine.newBuilder()
            .maximumSize(RedisKeys.MAX_CACHED_LIMITS)
            .expireAfterWrite(Duration.ofHours(1))
            .executor(Runnable::run) // see RedisKeys
            .build();

    /**
     * @param refusals the refusals served in the JVM; null: every call asks Redis
     * @param announcements the channel of resets between instances
     */
    KeptRefusals(@Nullable LocalRefusals refusals, ForgetAnnouncements announcements) {
        this.refusals = refusals;
        this.announcements = announcements;
    }

    /** Whether refusals are served in the JVM at all. */
    boolean serving() {
        return refusals != null;
    }

    /** The JVM's monotonic time that a call about to be sent is timed by (0 when nothing is served here). */
    long now() {
        return refusals == null ? 0 : LocalRefusals.now();
    }

    /** A refusal kept for every key of a call that a kept refusal answers, or null: Redis decides. */
    @Nullable
    Decision refuse(Map<String, LimitRequest> byKey, long now) {
        return refusals == null ? null : refusals.refuse(byKey, now);
    }

    /** What a call about to be sent passes to {@link #remember}. */
    long resetsWhenSent() {
        return refusals == null ? 0 : refusals.resetsHeard();
    }

    /** The resets and credits heard here so far, which a slot held compares with {@link #resetSince}. */
    long resetsHeard() {
        return resetsHeard.get();
    }

    /**
     * Keeps a refusal Redis made for local answers, once this instance hears resets (so that a reset elsewhere can
     * never leave a stale local refusal behind); until then, starts listening.
     */
    void remember(Decision decision, Map<String, LimitRequest> byKey, long sent, long resetsWhenSent) {
        LocalRefusals kept = refusals;
        if (kept != null && announcements.listen(onAnnounced)) {
            kept.remember(decision, byKey, sent, resetsWhenSent);
        }
    }

    /** Resets elsewhere are heard from now on (a slot is held, or refusals are kept). */
    void listen() {
        if (refusals != null) {
            announcements.listen(onAnnounced);
        }
    }

    /** Whether a reset or credit of one of {@code keys}, or of every key, was heard after {@code heardBefore}. */
    boolean resetSince(long heardBefore, Collection<String> keys) {
        Long all = lastResetOf.getIfPresent(FORGET_ALL);
        if (all != null && all > heardBefore) {
            return true;
        }
        for (String key : keys) {
            Long last = lastResetOf.getIfPresent(key);
            if (last != null && last > heardBefore) {
                return true;
            }
        }
        return false;
    }

    /** Counts a reset or credit of {@code key} ({@link #FORGET_ALL}: of every key) for the slots held. */
    void heard(String key) {
        lastResetOf.put(key, resetsHeard.incrementAndGet());
    }

    /**
     * A key's counts changed here (reset, credited): counted for the slots held, which then no longer stand, and
     * {@linkplain #forgetAndWait forgotten everywhere}.
     */
    void changedAndWait(String key) {
        heard(key);
        forgetAndWait(key);
    }

    /**
     * A key's refusals are stale (its counts changed, its penalty was lifted): forgotten here and announced; returns
     * once every instance that heard it has forgotten it (within the guard's budget).
     */
    void forgetAndWait(String key) {
        if (refusals != null) {
            refusals.forget(key);
            announcements.announceAndWait(key);
        }
    }

    /** A key's units were given back here: its refusals are forgotten here and elsewhere, not waited for. */
    void gaveBack(String key) {
        if (refusals != null) {
            refusals.forget(key);
            announcements.announce(key);
        }
    }

    /** Every key changed (the counts under the prefix were deleted): forgotten here and on every instance. */
    void allChangedAndWait() {
        heard(FORGET_ALL);
        if (refusals != null) {
            refusals.forgetAll();
            announcements.announceAndWait(FORGET_ALL);
        }
    }

    /** Forgets what is kept here only, announcing nothing (a test moved the clock the refusals were timed on). */
    void forgetHere() {
        if (refusals != null) {
            refusals.forgetAll();
        }
    }

    /** Forgets the refusals kept of an announced key ({@link #FORGET_ALL}: of every key). */
    private CompletionStage<?> forgetAnnounced(String key) {
        heard(key);
        LocalRefusals kept = refusals;
        if (kept != null) {
            if (FORGET_ALL.equals(key)) {
                kept.forgetAll();
            } else {
                kept.forget(key);
            }
        }
        return CompletableFuture.completedFuture(null);
    }
}
