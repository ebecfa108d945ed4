package io.github.ratelimit.local;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.CalendarPeriod;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.SlotHolder;
import io.github.ratelimit.core.Usage;
import io.github.ratelimit.core.internal.Messages;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A rate limiter in this JVM, for the time Redis cannot decide: the same three algorithms as the Redis scripts, exact
 * for this instance (a call's requests decided together, all or nothing, under one lock), on the JVM's monotonic clock.
 * Its state is bounded: at most {@code maxEntries} limit-and-identifier pairs (the least recently used are forgotten
 * first), each forgotten once its window has passed unused.
 *
 * <p>Counts belong to a limit's name, algorithm and window and to the identifier, not to the quota: the quota a call
 * asks for may change between calls (an instance's share of a limit changes with the number of instances) and what was
 * counted stays counted, as for a plan's quota in Redis.
 */
public final class LocalRateLimiter implements RateLimiter, SlotHolder {

    /** How many limit-and-identifier pairs are kept at most unless told otherwise. */
    public static final long DEFAULT_MAX_ENTRIES = 100_000;

    private final Cache<Key, State> states;
    private final LongSupplier nanoTime;
    /** The wall-clock time and the monotonic clock at the start: decisions are timed on the monotonic clock from here. */
    private final Instant started = Instant.now();

    private final long startedNanos;

    /** Counts resets, credits and forgetting, so that a slot held can tell one came after it. */
    private long changes;

    /** The pairs in a penalty box and when each box ends (nanos); at most {@code maxEntries}, guarded by this. */
    private final Map<Key, Long> boxes = new HashMap<>();

    private final long maxEntries;

    /** @param maxEntries how many limit-and-identifier pairs are kept at most, at least 1 */
    public LocalRateLimiter(long maxEntries) {
        this(maxEntries, System::nanoTime);
    }

    LocalRateLimiter(long maxEntries, LongSupplier nanoTime) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, but was " + maxEntries);
        }
        this.nanoTime = nanoTime;
        this.maxEntries = maxEntries;
        this.startedNanos = nanoTime.getAsLong();
        this.states = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .executor(Runnable::run) // its upkeep on the calling thread, under the lock: no pool thread woken
                .ticker(nanoTime::getAsLong) // a pair unused for a window on the clock it counts by
                .expireAfter(new UnusedForAWindow())
                .build();
    }

    @Override
    public Decision tryAcquire(List<LimitRequest> requests) {
        return decide(requests, 0, null);
    }

    /**
     * A waiting call's decision (see {@link SlotHolder}): a call of sliding windows refused now holds the earliest slot
     * at which every limit has room, if it falls within {@code within}, counted at that slot at once. Its caller gives
     * it back by giving up; a reset, credit or forgetting on this limiter meanwhile makes the caller decide again.
     */
    @Override
    public Held hold(List<LimitRequest> requests, Duration within) {
        List<long[]> taken = new ArrayList<>();
        Decision decision = decide(requests, Math.max(0, within.toNanos()), taken);
        if (taken.isEmpty()) {
            return Held.none(decision);
        }
        long changesWhenHeld;
        synchronized (this) {
            changesWhenHeld = changes;
        }
        Map<Key, LimitRequest> distinct = distinct(requests);
        return Held.of(
                decision,
                () -> {
                    synchronized (this) {
                        return changes == changesWhenHeld;
                    }
                },
                () -> {
                    synchronized (this) {
                        int i = 0;
                        for (Key key : distinct.keySet()) {
                            if (states.policy().getIfPresentQuietly(key) instanceof SlidingWindow window
                                    && i < taken.size()) {
                                window.giveBack(taken.get(i), key.windowMs() * 1_000_000);
                            }
                            i++;
                        }
                    }
                });
    }

    @Override
    public CompletionStage<Held> holdAsync(List<LimitRequest> requests, Duration within) {
        try {
            return CompletableFuture.completedFuture(hold(requests, within));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Decides a call; refused, a call of sliding windows only holds a slot up to {@code holdWithin} ns ahead, and the
     * entries it took, one per distinct request in order (null where it took none), are added to {@code taken}.
     */
    private Decision decide(List<LimitRequest> requests, long holdWithin, @Nullable List<long[]> taken) {
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("at least one request");
        }
        Map<Key, LimitRequest> distinct = distinct(requests);
        List<LimitOutcome> outcomes = new ArrayList<>(distinct.size());
        boolean allowed = true;
        long at;
        synchronized (this) {
            long now = nanoTime.getAsLong();
            at = now;
            List<State> checked = new ArrayList<>(distinct.size());
            boolean holds = holdWithin > 0;
            for (Map.Entry<Key, LimitRequest> entry : distinct.entrySet()) {
                LimitRequest request = entry.getValue();
                State state = states.get(
                        entry.getKey(), key -> State.of(request.limit().algorithm()));
                checked.add(state);
                LimitOutcome outcome = penalized(entry.getKey(), request, state.check(request, now), now);
                outcomes.add(outcome);
                allowed &= outcome.allowed() || request.shadow();
                holds &= state instanceof SlidingWindow;
                if (!outcome.allowed() && !request.shadow()) {
                    at = Math.max(at, now + outcome.retryAfter().toNanos());
                }
                if (state instanceof SlidingWindow window) {
                    at = Math.max(at, window.newest(now)); // its entries stay in time order
                }
            }
            boolean held = !allowed && holds && at - now <= holdWithin;
            int i = 0;
            for (LimitRequest request : distinct.values()) {
                LimitOutcome outcome = outcomes.get(i);
                boolean takes = (allowed && outcome.allowed() || held && (outcome.allowed() || !request.shadow()))
                        && !request.checkOnly()
                        && request.cost() > 0;
                if (takes && held) {
                    SlidingWindow window = (SlidingWindow) checked.get(i);
                    long[] entry = window.takeAt(request, at, now);
                    if (taken != null) {
                        taken.add(entry);
                    }
                    outcomes.set(
                            i,
                            new LimitOutcome(
                                    request,
                                    true,
                                    0,
                                    State.waitOf(
                                            at - now + request.limit().window().toNanos()),
                                    State.waitOf(at - now)));
                    states.put(Key.of(request), window); // kept at least until its entry leaves
                } else if (takes) {
                    outcomes.set(i, checked.get(i).take(request, now));
                } else if (held && taken != null) {
                    taken.add(null);
                }
                i++;
            }
            allowed |= held;
            at = held ? at : now;
        }
        // on the clock the limits count by, so that the times of admissions are as far apart as counted
        return new Decision(allowed, outcomes, started.plusNanos(at - startedNanos));
    }

    /**
     * The outcome a penalty box makes of a check: a pair in its box is refused until the box ends; a pair refused by a
     * limit with a penalty goes into the box for the penalty, and is told to wait that long. Called holding the lock.
     */
    private LimitOutcome penalized(Key key, LimitRequest request, LimitOutcome checked, long now) {
        Duration penalty = request.limit().penalty();
        if (penalty.isZero() || request.shadow()) {
            return checked;
        }
        Long ends = boxes.get(key);
        if (ends != null && now - ends >= 0) {
            boxes.remove(key);
            ends = null;
        }
        if (ends == null && checked.allowed()) {
            return checked;
        }
        if (ends == null && request.cost() > 0) { // a refusal (also of a check before a charge), not a probe
            if (boxes.size() >= maxEntries) {
                boxes.values().removeIf(end -> now - end >= 0);
            }
            if (boxes.size() < maxEntries) {
                ends = now + penalty.toNanos();
                boxes.put(key, ends);
            }
        }
        Duration left = State.waitOf(ends == null ? penalty.toNanos() : ends - now);
        return new LimitOutcome(request, false, 0, left, left);
    }

    @Override
    public boolean liftPenalty(RateLimit limit, ClientIdentifier identifier) {
        Key key = new Key(limit.name(), limit.algorithm(), limit.windowMs(), identifier);
        synchronized (this) {
            changes++;
            Long ends = boxes.remove(key);
            if (ends == null || nanoTime.getAsLong() - ends >= 0) {
                return false;
            }
            states.invalidate(key); // out of the box, its count starts afresh
            return true;
        }
    }

    @Override
    public List<Penalty> penalties(int max) {
        List<Penalty> listed = new ArrayList<>();
        synchronized (this) {
            long now = nanoTime.getAsLong();
            for (Map.Entry<Key, Long> box : boxes.entrySet()) {
                long left = box.getValue() - now;
                if (left > 0 && listed.size() < max) {
                    Key key = box.getKey();
                    String counts =
                            switch (key.algorithm()) {
                                case SLIDING_WINDOW -> "sw";
                                case FIXED_WINDOW -> "fw";
                                case TOKEN_BUCKET -> "tb";
                            };
                    listed.add(new Penalty(
                            key.name() + ':' + counts + '/' + key.windowMs(),
                            Base64.getUrlEncoder()
                                    .withoutPadding()
                                    .encodeToString(
                                            Arrays.copyOf(key.identifier().digest(), 16)),
                            Duration.ofNanos(left)));
                }
            }
        }
        return listed;
    }

    /** Reads each pair as it stands, creating none and leaving every pair's expiry as it was. */
    @Override
    public Usage usage(List<LimitRequest> requests) {
        Map<Key, LimitRequest> distinct = distinct(Usage.reads(requests));
        List<LimitOutcome> outcomes = new ArrayList<>(distinct.size());
        synchronized (this) {
            long now = nanoTime.getAsLong();
            distinct.forEach((key, request) -> {
                State state = states.policy().getIfPresentQuietly(key);
                outcomes.add((state == null ? State.of(request.limit().algorithm()) : state).check(request, now));
            });
        }
        return Usage.of(new Decision(true, outcomes, Instant.now()));
    }

    @Override
    public long credit(List<LimitRequest> requests, long units) {
        if (units < 1) {
            throw new IllegalArgumentException(Messages.atLeast("units", 1, units));
        }
        Map<Key, LimitRequest> distinct = distinct(requests);
        long granted = units;
        synchronized (this) {
            changes++;
            long now = nanoTime.getAsLong();
            for (Map.Entry<Key, LimitRequest> entry : distinct.entrySet()) {
                LimitRequest request = entry.getValue();
                State state = states.get(
                        entry.getKey(), key -> State.of(request.limit().algorithm()));
                granted = Math.min(granted, state.credit(request, units, now));
            }
        }
        return granted;
    }

    /** The requests by the pair each counts, the first of each pair kept, in order. */
    private static Map<Key, LimitRequest> distinct(List<LimitRequest> requests) {
        Map<Key, LimitRequest> distinct = new LinkedHashMap<>();
        for (LimitRequest request : requests) {
            distinct.putIfAbsent(Key.of(request), request);
        }
        return distinct;
    }

    @Override
    public void reset(RateLimit limit, ClientIdentifier identifier) {
        synchronized (this) {
            changes++;
            Key key = new Key(limit.name(), limit.algorithm(), limit.windowMs(), identifier);
            states.invalidate(key);
            boxes.remove(key);
        }
    }

    /**
     * Nothing to forget: every decision here reads its limit's quota as it is now, so what was counted carries over to a
     * new quota, as in Redis (forgetting would hand every client of every limit a fresh budget).
     */
    @Override
    public void quotasChanged() {}

    @Override
    public void forgetLocalState() {
        synchronized (this) {
            changes++;
            states.invalidateAll();
            boxes.clear();
        }
    }

    /** How many limit-and-identifier pairs are kept right now (after pending clean-up). */
    public long size() {
        states.cleanUp();
        return states.estimatedSize();
    }

    private record Key(String name, Algorithm algorithm, long windowMs, ClientIdentifier identifier) {
        static Key of(LimitRequest request) {
            RateLimit limit = request.limit();
            return new Key(limit.name(), limit.algorithm(), limit.windowMs(), request.identifier());
        }
    }

    /**
     * Forgets a pair once its window has passed since it was last used (or since the slot held furthest ahead): by then
     * it holds nothing.
     */
    private static final class UnusedForAWindow implements Expiry<Key, State> {
        private static long window(Key key, State state) {
            return Duration.ofMillis(key.windowMs()).toNanos() + state.ahead;
        }

        @Override
        public long expireAfterCreate(Key key, State state, long currentTime) {
            return window(key, state);
        }

        @Override
        public long expireAfterUpdate(Key key, State state, long currentTime, long currentDuration) {
            return window(key, state);
        }

        @Override
        public long expireAfterRead(Key key, State state, long currentTime, long currentDuration) {
            return window(key, state);
        }
    }

    /** One pair's state; every method is called under the limiter's lock. */
    private abstract static class State {

        /** How far ahead of its last use its newest entry was (a slot held), in ns: it is kept that much longer. */
        long ahead;

        static State of(Algorithm algorithm) {
            return switch (algorithm) {
                case SLIDING_WINDOW -> new SlidingWindow();
                case FIXED_WINDOW -> new FixedWindow();
                case TOKEN_BUCKET -> new TokenBucket();
            };
        }

        /** Whether the request fits, and what the caller is told if nothing is taken. */
        abstract LimitOutcome check(LimitRequest request, long now);

        /** Takes the request's cost (it fits), and says what the caller is told once it was taken. */
        abstract LimitOutcome take(LimitRequest request, long now);

        /** Grants {@code units} more for the current window (see {@link RateLimiter#credit}); the units granted. */
        abstract long credit(LimitRequest request, long units, long now);

        static Duration nanos(long nanos) {
            return Duration.ofNanos(Math.max(0, nanos));
        }

        /** A wait, rounded up to whole milliseconds, so that waiting it always suffices. */
        static Duration waitOf(long nanos) {
            return Duration.ofMillis(Math.max(0, (nanos + 999_999) / 1_000_000));
        }
    }

    /** Every admitted unit in the last window, oldest first (a call's units as one entry). */
    private static final class SlidingWindow extends State {
        private final ArrayDeque<long[]> entries = new ArrayDeque<>(); // {admitted at, units}
        private long live;

        private void expire(long now, long window) {
            while (!entries.isEmpty() && now - entries.peekFirst()[0] >= window) {
                live -= entries.pollFirst()[1];
            }
        }

        @Override
        LimitOutcome check(LimitRequest request, long now) {
            long window = request.limit().window().toNanos();
            long limit = request.limit().ceiling();
            expire(now, window);
            long reset = entries.isEmpty() ? 0 : entries.peekLast()[0] + window - now;
            long remaining = Math.max(0, limit - live);
            if (live + request.cost() <= limit) {
                return new LimitOutcome(request, true, remaining, nanos(reset), Duration.ZERO);
            }
            long toFree = live + request.cost() - limit;
            long freedAt = now;
            for (long[] entry : entries) {
                toFree -= entry[1];
                freedAt = entry[0] + window;
                if (toFree <= 0) {
                    break;
                }
            }
            return new LimitOutcome(request, false, remaining, nanos(reset), waitOf(freedAt - now));
        }

        /** Forgets the newest counted units, at most what the window holds. */
        @Override
        long credit(LimitRequest request, long units, long now) {
            expire(now, request.limit().window().toNanos());
            long left = units;
            while (left > 0 && !entries.isEmpty()) {
                long[] newest = entries.peekLast();
                long taken = Math.min(newest[1], left);
                newest[1] -= taken;
                live -= taken;
                left -= taken;
                if (newest[1] == 0) {
                    entries.pollLast();
                }
            }
            return units - left;
        }

        /** The time the next entry is dated: now, or the newest entry's if that is later (a slot held ahead). */
        long newest(long now) {
            return entries.isEmpty() ? now : Math.max(now, entries.peekLast()[0]);
        }

        /** Takes the cost at a slot held ahead: counted from now on, and as an admission from {@code at}. */
        long[] takeAt(LimitRequest request, long at, long now) {
            long[] entry = {at, request.cost()};
            entries.addLast(entry);
            live += request.cost();
            ahead = Math.max(0, at - now);
            return entry;
        }

        /**
         * A slot held given back before its time: its entry is dated again at the entry before it, or a window before
         * the slot (its room came from entries at least that old), whichever is later; so no count falls and the
         * entries stay in time order.
         */
        void giveBack(long[] held, long window) {
            long before = Long.MIN_VALUE;
            for (long[] entry : entries) {
                if (entry == held) {
                    held[0] = before == Long.MIN_VALUE ? held[0] - window : Math.max(before, held[0] - window);
                    return;
                }
                before = entry[0];
            }
        }

        @Override
        LimitOutcome take(LimitRequest request, long now) {
            entries.addLast(new long[] {newest(now), request.cost()});
            live += request.cost();
            return new LimitOutcome(
                    request,
                    true,
                    request.limit().ceiling() - live,
                    request.limit().window(),
                    Duration.ZERO);
        }
    }

    /**
     * A counter that starts with the window's first admitted call (or credit) and ends a window later; a credit may
     * take it below zero.
     */
    private static final class FixedWindow extends State {
        private long count;
        private long endsAt;
        private boolean started;

        /** Whether a window is running; a window that ended leaves nothing counted. */
        private boolean running(long now) {
            if (started && now - endsAt >= 0) {
                started = false;
                count = 0;
            }
            return started;
        }

        private void start(LimitRequest request, long now) {
            if (!running(now)) {
                started = true;
                endsAt = now + length(request);
            }
        }

        /**
         * How long a window starting now lasts: the limit's window, or for a calendar quota until the next period
         * starts, by this machine's wall clock (what memory has instead of Redis's).
         */
        private static long length(LimitRequest request) {
            CalendarPeriod period = request.limit().period();
            if (period == null) {
                return request.limit().window().toNanos();
            }
            Instant wall = Instant.now();
            return Math.max(
                    1, Duration.between(wall, period.next(period.startOf(wall))).toNanos());
        }

        @Override
        LimitOutcome check(LimitRequest request, long now) {
            long left = running(now) ? endsAt - now : length(request);
            long limit = request.limit().ceiling();
            long remaining = Math.max(0, limit - count);
            if (count + request.cost() <= limit) {
                return new LimitOutcome(request, true, remaining, waitOf(left), Duration.ZERO);
            }
            return new LimitOutcome(request, false, remaining, waitOf(left), waitOf(left));
        }

        @Override
        LimitOutcome take(LimitRequest request, long now) {
            start(request, now);
            count += request.cost();
            return new LimitOutcome(
                    request, true, request.limit().ceiling() - count, waitOf(endsAt - now), Duration.ZERO);
        }

        /** Counts {@code units} fewer, below zero if need be, until the window ends (one starts now if none runs). */
        @Override
        long credit(LimitRequest request, long units, long now) {
            start(request, now);
            count -= units;
            return units;
        }
    }

    /** GCRA, as the script: one theoretical arrival time; a full bucket holds {@code limit} units. */
    private static final class TokenBucket extends State {
        private long tat = Long.MIN_VALUE;

        private static long interval(LimitRequest request) {
            return Math.max(
                    1, request.limit().window().toNanos() / request.limit().limit());
        }

        /** A full bucket, or what a share may use of it (the rest is kept for the budget's other limits). */
        private static long burst(LimitRequest request) {
            RateLimit limit = request.limit();
            return limit.ceiling() == limit.limit() ? limit.window().toNanos() : interval(request) * limit.ceiling();
        }

        private long tat(long now) {
            return tat == Long.MIN_VALUE || tat - now < 0 ? now : tat;
        }

        @Override
        LimitOutcome check(LimitRequest request, long now) {
            long interval = interval(request);
            long burst = burst(request);
            long current = tat(now);
            long allowAt = current + request.cost() * interval - burst;
            long remaining = Math.max(0, (now + burst - current) / interval);
            if (now - allowAt >= 0) {
                return new LimitOutcome(request, true, remaining, nanos(current - now), Duration.ZERO);
            }
            return new LimitOutcome(request, false, remaining, nanos(current - now), waitOf(allowAt - now));
        }

        /** Refills {@code units}, at most up to a full bucket. */
        @Override
        long credit(LimitRequest request, long units, long now) {
            long interval = interval(request);
            long owed = tat(now) - now;
            long granted = Math.min(units, (owed + interval - 1) / interval);
            tat = Math.max(now, tat(now) - units * interval);
            return granted;
        }

        @Override
        LimitOutcome take(LimitRequest request, long now) {
            tat = tat(now) + request.cost() * interval(request);
            long burst = burst(request);
            return new LimitOutcome(
                    request,
                    true,
                    Math.max(0, (now + burst - tat) / interval(request)),
                    waitOf(tat - now),
                    Duration.ZERO);
        }
    }
}
