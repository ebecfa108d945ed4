package io.github.ratelimit.redis.concurrency;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.internal.AdaptiveSlots;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.BudgetTimer;
import io.github.ratelimit.redis.internal.GiveBacks;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Concurrency limits in Redis: per key a sorted set of holders scored by the end of their lease (Redis time); a slot is
 * taken by one script that first drops expired leases, renewed by a watchdog while held (up to its maximum lifetime),
 * and given back by removing exactly its owner.
 *
 * <p>An adaptive limit's slots are the same, against a limit that is one value for the fleet: the script that takes a
 * slot first applies the limit's step once per window to what every instance reported ({@code adaptive_acquire.lua}),
 * and the script that gives it back reports the call's latency or its drop ({@code adaptive_release.lua}); two calls
 * per call, as for a fixed limit. While Redis cannot decide, each instance adapts its share of the last fleet limit
 * (that limit over the instances seen) in memory, and the fleet's limit takes over again once Redis answers.
 */
public final class RedisConcurrencyLimiter
        implements ConcurrencyLimiter, AdaptiveConcurrencyLimiter, RateLimitEvents.Source, AutoCloseable {

    private final RateLimitEvents events = new RateLimitEvents();

    private static final Logger log = LoggerFactory.getLogger(RedisConcurrencyLimiter.class);

    static final LuaScript ACQUIRE = LuaScript.load(RedisConcurrencyLimiter.class, "concurrency_acquire");
    static final LuaScript RELEASE = LuaScript.load(RedisConcurrencyLimiter.class, "concurrency_release");
    static final LuaScript GIVE_BACK = LuaScript.load(RedisConcurrencyLimiter.class, "concurrency_giveback");
    static final LuaScript RENEW = LuaScript.load(RedisConcurrencyLimiter.class, "concurrency_renew");
    static final LuaScript ADAPTIVE_ACQUIRE = LuaScript.load(RedisConcurrencyLimiter.class, "adaptive_acquire");
    static final LuaScript ADAPTIVE_RELEASE = LuaScript.load(RedisConcurrencyLimiter.class, "adaptive_release");
    static final LuaScript ADAPTIVE_STATUS = LuaScript.load(RedisConcurrencyLimiter.class, "adaptive_status");
    static final LuaScript ADAPTIVE_STEER = LuaScript.load(RedisConcurrencyLimiter.class, "adaptive_steer");

    /** Calls end whenever they end: a refused caller is told to come back in a second. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final ScriptExecutor executor;
    private final RedisKeys keys;
    private final long ownerPrefix = new SecureRandom().nextLong();
    private final AtomicLong owners = new AtomicLong();
    private final ScheduledExecutorService watchdog;
    /** This instance, as the fleet's adaptive limits count instances. */
    private final String instance;
    /** The fleet's last limit and instances seen, per adaptive limit and identifier: the share kept for an outage. */
    private final Map<String, int[]> lastFleet = new ConcurrentHashMap<>();
    /** Adapts this instance's share while Redis cannot decide; made again for each outage. */
    private volatile @Nullable AdaptiveSlots outage;

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     * @param guard the latency budget and circuit breaker, shared by everything that uses this Redis
     */
    public RedisConcurrencyLimiter(RedissonClient redisson, String keyPrefix, RedisGuard guard) {
        this.executor = new ScriptExecutor(redisson, guard);
        this.keys = new RedisKeys(keyPrefix);
        this.watchdog = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ratelimit-concurrency-watchdog");
            thread.setDaemon(true);
            return thread;
        });
        this.instance = Long.toUnsignedString(ownerPrefix, 36);
    }

    /** Where listeners of this implementation's events are added. */
    @Override
    public RateLimitEvents events() {
        return events;
    }

    @Override
    public Permit tryAcquire(String name, ClientIdentifier identifier, int max, Duration lease, Duration maxLifetime) {
        return RateLimitEvents.observe(
                events.acquiringSlot(name), () -> tryAcquireNow(name, identifier, max, lease, maxLifetime));
    }

    private Permit tryAcquireNow(
            String name, ClientIdentifier identifier, int max, Duration lease, Duration maxLifetime) {
        Attempt attempt = new Attempt(name, identifier, max, lease, maxLifetime);
        List<Object> reply;
        try {
            reply = executor.call(ACQUIRE, attempt.keys, attempt.args());
        } catch (RedisUnavailableException e) {
            attempt.giveBack(); // the slot may have been taken, its answer lost
            throw e;
        }
        return attempt.permit(reply);
    }

    @Override
    public CompletableFuture<Permit> tryAcquireAsync(
            String name, ClientIdentifier identifier, int max, Duration lease, Duration maxLifetime) {
        return RateLimitEvents.observeAsync(
                events.acquiringSlot(name), () -> tryAcquireNowAsync(name, identifier, max, lease, maxLifetime));
    }

    private CompletableFuture<Permit> tryAcquireNowAsync(
            String name, ClientIdentifier identifier, int max, Duration lease, Duration maxLifetime) {
        Attempt attempt;
        try {
            attempt = new Attempt(name, identifier, max, lease, maxLifetime);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return executor.callAsync(ACQUIRE, attempt.keys, attempt.args())
                .whenComplete((reply, error) -> {
                    if (Futures.cause(error) instanceof RedisUnavailableException) {
                        attempt.giveBack(); // the slot may have been taken, its answer lost
                    }
                })
                .thenApply(attempt::permit);
    }

    /** One acquisition: checked arguments, its key and owner. */
    private final class Attempt {
        final String name;
        final int max;
        final Duration lease;
        final Duration maxLifetime;
        final List<Object> keys;
        final String owner;

        Attempt(String name, ClientIdentifier identifier, int max, Duration lease, Duration maxLifetime) {
            this(name, identifier, max, lease, maxLifetime, RedisConcurrencyLimiter.this.keys::concurrencyKey);
        }

        /** @param holdersKey the key of the holders, from the limit's name and the identifier's tag */
        Attempt(
                String name,
                ClientIdentifier identifier,
                int max,
                Duration lease,
                Duration maxLifetime,
                BinaryOperator<String> holdersKey) {
            if (!Messages.isName(name)) {
                throw new IllegalArgumentException(Messages.badName("concurrency limit name", name));
            }
            if (identifier == null) {
                throw new IllegalArgumentException(Messages.empty("identifier") + " (limit '" + name + "')");
            }
            if (max < 1) {
                throw new IllegalArgumentException(Messages.atLeast("max", 1, max) + " (limit '" + name + "')");
            }
            if (lease == null || lease.toMillis() < 1 || maxLifetime == null || maxLifetime.compareTo(lease) < 0) {
                throw new IllegalArgumentException("lease must be at least 1 ms and the maximum lifetime at least the"
                        + " lease, but were " + lease + " and " + maxLifetime + " (limit '" + name + "')");
            }
            this.name = name;
            this.max = max;
            this.lease = lease;
            this.maxLifetime = maxLifetime;
            String holders = holdersKey.apply(name, RedisKeys.tag(identifier));
            this.keys = List.of(holders, RedisKeys.givenBackKey(holders));
            this.owner = Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(ByteBuffer.allocate(16)
                            .putLong(ownerPrefix)
                            .putLong(owners.incrementAndGet())
                            .array());
        }

        Object[] args() {
            return new Object[] {Integer.toString(max), owner, Long.toString(lease.toMillis())};
        }

        /**
         * Gives back the slot this attempt may hold, its caller having been told it failed; an attempt that has not
         * run yet takes nothing when it does (see {@link GiveBacks}).
         */
        void giveBack() {
            GiveBacks.send(
                    events,
                    "slot",
                    () -> executor.callAsync(
                            GIVE_BACK, keys, new Object[] {owner, Long.toString(maxLifetime.toMillis())}),
                    reply -> ScriptExecutor.number(reply.get(0)) == 1);
        }

        Permit permit(List<Object> reply) {
            if (ScriptExecutor.number(reply.get(0)) != 1) {
                throw new ConcurrencyLimitExceededException(name, max, RETRY_AFTER);
            }
            String holders = (String) keys.get(0);
            RedisPermit permit = new RedisPermit(
                    name, holders, owner, lease, maxLifetime, drop -> new Release(RELEASE, List.of(holders), owner));
            permit.scheduleRenewal();
            return permit;
        }
    }

    /** The script that gives a slot back, and what it is sent (the owner first). */
    private record Release(LuaScript script, List<Object> keys, Object... args) {

        CompletableFuture<List<Object>> sendAsync(ScriptExecutor executor) {
            return executor.callAsync(script, keys, args);
        }
    }

    /**
     * A held slot: renewed until released or its maximum lifetime; released once, by the script {@code release} names
     * for its end (completed, or dropped).
     */
    private class RedisPermit implements Permit {
        final String name;
        private final String key;
        private final String owner;
        private final Duration lease;
        private final long endOfLife;
        private final Function<@Nullable Boolean, Release> release;
        private final AtomicBoolean released = new AtomicBoolean();
        private volatile @Nullable ScheduledFuture<?> renewal;

        RedisPermit(
                String name,
                String key,
                String owner,
                Duration lease,
                Duration maxLifetime,
                Function<@Nullable Boolean, Release> release) {
            this.name = name;
            this.key = key;
            this.owner = owner;
            this.lease = lease;
            this.endOfLife = System.nanoTime() + maxLifetime.toNanos();
            this.release = release;
        }

        /**
         * Starts renewing, from the lock-free timer's thread: scheduling takes the watchdog's queue lock, which an I/O
         * thread completing an acquisition must never wait for.
         */
        void scheduleRenewal() {
            BudgetTimer.after(Duration.ZERO, () -> {
                if (!released.get()) {
                    long period = Math.max(1, lease.toMillis() / 3);
                    renewal = watchdog.scheduleAtFixedRate(this::renew, period, period, TimeUnit.MILLISECONDS);
                }
            });
        }

        private void renew() {
            long left = endOfLife - System.nanoTime();
            if (released.get() || left <= 0) {
                stopRenewal();
                return;
            }
            long ms = Math.max(1, Math.min(lease.toMillis(), TimeUnit.NANOSECONDS.toMillis(left)));
            try {
                List<Object> reply = executor.call(RENEW, List.of(key), new Object[] {owner, Long.toString(ms)});
                if (ScriptExecutor.number(reply.get(0)) != 1) {
                    stopRenewal();
                    log.warn("A slot of concurrency limit '{}' expired before its call ended", name);
                }
            } catch (RuntimeException e) {
                log.warn("Could not renew a slot of concurrency limit '{}'; it ends with its lease", name, e);
            }
        }

        private void stopRenewal() {
            ScheduledFuture<?> scheduled = renewal;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        }

        @Override
        public boolean release() {
            return end(false);
        }

        /** Gives the slot back once, as completed or as dropped (or, null, as never run). */
        boolean end(@Nullable Boolean drop) {
            if (!released.compareAndSet(false, true)) {
                return false;
            }
            stopRenewal();
            Release sent = release.apply(drop);
            try {
                return ScriptExecutor.number(executor.call(sent.script(), sent.keys(), sent.args())
                                .get(0))
                        == 1;
            } catch (RedisUnavailableException e) {
                releaseLater(sent);
                return false;
            }
        }

        /**
         * A release Redis did not answer is sent again until it is (idempotent: it removes this owner only), so that
         * the slot comes back before its lease ends; counted and, when it still fails, logged by {@link GiveBacks}.
         */
        private void releaseLater(Release sent) {
            GiveBacks.send(
                    events, "slot", () -> sent.sendAsync(executor), reply -> ScriptExecutor.number(reply.get(0)) == 1);
        }

        @Override
        public CompletableFuture<Boolean> releaseAsync() {
            return endAsync(false);
        }

        /** The same as {@link #end} without blocking the calling thread. */
        CompletableFuture<Boolean> endAsync(@Nullable Boolean drop) {
            if (!released.compareAndSet(false, true)) {
                return CompletableFuture.completedFuture(false);
            }
            stopRenewal();
            Release sent = release.apply(drop);
            return sent.sendAsync(executor).handle((reply, error) -> {
                if (error != null) {
                    if (Futures.cause(error) instanceof RedisUnavailableException) {
                        releaseLater(sent);
                    } else {
                        log.warn("Could not give back a slot of concurrency limit '{}'", name, error);
                    }
                    return false;
                }
                return ScriptExecutor.number(reply.get(0)) == 1;
            });
        }
    }

    @Override
    public AdaptivePermit tryAcquire(
            String name, ClientIdentifier identifier, AdaptiveSettings settings, Duration lease, Duration maxLifetime) {
        // the listeners see a slot of a concurrency limit, as for a fixed limit
        return (AdaptivePermit) RateLimitEvents.<Permit>observe(events.acquiringSlot(name), () -> {
            AdaptiveAttempt attempt = new AdaptiveAttempt(name, identifier, settings, lease, maxLifetime);
            List<Object> reply;
            try {
                reply = executor.call(ADAPTIVE_ACQUIRE, attempt.keys, attempt.args());
            } catch (RedisUnavailableException e) {
                attempt.giveBack(); // the slot may have been taken, its answer lost
                return attempt.inOutage();
            }
            return attempt.permit(reply);
        });
    }

    @Override
    public CompletableFuture<AdaptivePermit> tryAcquireAsync(
            String name, ClientIdentifier identifier, AdaptiveSettings settings, Duration lease, Duration maxLifetime) {
        return RateLimitEvents.observeAsync(events.acquiringSlot(name), () -> {
                    AdaptiveAttempt attempt;
                    try {
                        attempt = new AdaptiveAttempt(name, identifier, settings, lease, maxLifetime);
                    } catch (RuntimeException e) {
                        return CompletableFuture.<Permit>failedFuture(e);
                    }
                    return executor.callAsync(ADAPTIVE_ACQUIRE, attempt.keys, attempt.args())
                            .<Permit>handle((reply, error) -> {
                                if (error == null) {
                                    return attempt.permit(reply);
                                }
                                Throwable cause = Futures.cause(error);
                                if (cause instanceof RedisUnavailableException) {
                                    attempt.giveBack(); // the slot may have been taken, its answer lost
                                    return attempt.inOutage();
                                }
                                throw cause instanceof RuntimeException runtime
                                        ? runtime
                                        : new CompletionException(cause);
                            });
                })
                .thenApply(AdaptivePermit.class::cast);
    }

    /**
     * The settings of this instance's share of a fleet limit of {@code limit} over {@code instances}: the bounds and
     * the limit divided among them, at least 1 each.
     */
    static AdaptiveSettings share(AdaptiveSettings settings, int limit, int instances) {
        int n = Math.max(1, instances);
        int min = Math.max(1, (settings.min() + n - 1) / n);
        int max = Math.max(min, settings.max() / n);
        int initial = Math.max(min, Math.min(max, limit / n));
        return new AdaptiveSettings(min, max, initial, settings.tolerance(), settings.window());
    }

    /**
     * One acquisition of an adaptive limit's slot: the {@link Attempt} of its holders (checked arguments, owner, give
     * back), and the keys of its windows, state and instances beside them (one hash slot).
     */
    private final class AdaptiveAttempt {
        final String name;
        final ClientIdentifier identifier;
        final AdaptiveSettings settings;
        final Duration lease;
        final Duration maxLifetime;
        final Attempt slot;
        final List<Object> keys;
        final String owner;

        AdaptiveAttempt(
                String name,
                ClientIdentifier identifier,
                AdaptiveSettings settings,
                Duration lease,
                Duration maxLifetime) {
            this.slot = new Attempt(
                    name,
                    identifier,
                    settings.min(),
                    lease,
                    maxLifetime,
                    RedisConcurrencyLimiter.this.keys::adaptiveKey);
            this.name = name;
            this.identifier = identifier;
            this.settings = settings;
            this.lease = lease;
            this.maxLifetime = maxLifetime;
            String holders = (String) slot.keys.get(0);
            this.keys = List.of(
                    holders,
                    slot.keys.get(1),
                    holders + ":windows",
                    holders + ":state",
                    holders + ":instances",
                    holders + ":operator");
            this.owner = slot.owner;
        }

        Object[] args() {
            return new Object[] {
                Long.toString(settings.window().toMillis()),
                Integer.toString(settings.min()),
                Integer.toString(settings.max()),
                Integer.toString(settings.initial()),
                Double.toString(settings.tolerance()),
                owner,
                Long.toString(lease.toMillis()),
                instance
            };
        }

        /** Gives back the slot this attempt may hold, as {@link Attempt#giveBack} does. */
        void giveBack() {
            slot.giveBack();
        }

        AdaptivePermit permit(List<Object> reply) {
            if (outage != null) {
                outage = null; // Redis decides again: the next outage starts from the fleet's limit of then
            }
            int slots = (int) ScriptExecutor.number(reply.get(2));
            int instances = (int) ScriptExecutor.number(reply.get(3));
            int[] last = lastFleet.get((String) keys.get(0));
            if (slots > 0 && (last == null || last[0] != slots || last[1] != instances)) {
                lastFleet.put((String) keys.get(0), new int[] {slots, instances}); // only when it moved
            }
            if (ScriptExecutor.number(reply.get(0)) != 1) {
                throw new ConcurrencyLimitExceededException(name, Math.max(1, slots), RETRY_AFTER);
            }
            String holders = (String) keys.get(0);
            List<Object> releaseKeys = List.of(holders, keys.get(2));
            String windowMs = Long.toString(settings.window().toMillis());
            // a call slower than this is the tail (o): the tolerated latency of the fleet's no-load latency of now
            long toleratedMicros = (long) (settings.tolerance() * ScriptExecutor.number(reply.get(4)));
            long takenAt = System.nanoTime();
            AdaptiveRedisPermit permit = new AdaptiveRedisPermit(
                    name,
                    holders,
                    owner,
                    lease,
                    maxLifetime,
                    slots,
                    (int) ScriptExecutor.number(reply.get(1)),
                    AdaptiveSlots.micros(ScriptExecutor.number(reply.get(4))),
                    AdaptiveSlots.micros(ScriptExecutor.number(reply.get(5))),
                    drop -> {
                        long micros = Math.max(1, (System.nanoTime() - takenAt) / 1_000);
                        String outcome = drop ? "d" : toleratedMicros > 0 && micros > toleratedMicros ? "o" : "c";
                        return new Release(
                                ADAPTIVE_RELEASE, releaseKeys, owner, windowMs, outcome, Long.toString(micros));
                    });
            permit.scheduleRenewal();
            return permit;
        }

        /** While Redis cannot decide: this instance's share of the fleet's last limit, adapted in memory. */
        AdaptivePermit inOutage() {
            int[] last = lastFleet.get((String) keys.get(0));
            AdaptiveSettings mine = last == null ? settings : share(settings, last[0], last[1]);
            AdaptiveSlots local = outage;
            if (local == null) {
                synchronized (lastFleet) {
                    local = outage;
                    if (local == null) {
                        local = new AdaptiveSlots(System::nanoTime);
                        outage = local;
                    }
                }
            }
            return local.tryAcquire(name, identifier, mine, lease, maxLifetime);
        }
    }

    /** A held slot of an adaptive limit: given back with its latency, or as dropped. */
    private final class AdaptiveRedisPermit extends RedisPermit implements AdaptivePermit {
        private final int limit;
        private final int inFlight;
        private final @Nullable Duration noLoad;
        private final @Nullable Duration recent;

        AdaptiveRedisPermit(
                String name,
                String key,
                String owner,
                Duration lease,
                Duration maxLifetime,
                int limit,
                int inFlight,
                @Nullable Duration noLoad,
                @Nullable Duration recent,
                Function<@Nullable Boolean, Release> release) {
            super(name, key, owner, lease, maxLifetime, release);
            this.limit = limit;
            this.inFlight = inFlight;
            this.noLoad = noLoad;
            this.recent = recent;
        }

        @Override
        public int inFlight() {
            return inFlight;
        }

        @Override
        public @Nullable Duration noLoadLatency() {
            return noLoad;
        }

        @Override
        public @Nullable Duration recentLatency() {
            return recent;
        }

        @Override
        public boolean drop() {
            return end(true);
        }

        @Override
        public CompletionStage<Boolean> dropAsync() {
            return endAsync(true);
        }

        @Override
        public CompletionStage<Boolean> giveBackAsync() {
            return endAsync(null);
        }

        @Override
        public int limit() {
            return limit;
        }
    }

    /** The key of an adaptive limit's holders, beside which its state and steering are kept. */
    private String adaptiveHolders(String name, ClientIdentifier identifier) {
        if (!Messages.isName(name)) {
            throw new IllegalArgumentException(Messages.badName("concurrency limit name", name));
        }
        return keys.adaptiveKey(name, RedisKeys.tag(identifier));
    }

    @Override
    public @Nullable Status status(String name, ClientIdentifier identifier) {
        String holders = adaptiveHolders(name, identifier);
        List<Object> reply =
                executor.call(ADAPTIVE_STATUS, List.of(holders + ":state", holders + ":operator"), new Object[0]);
        Steering steering = reply.get(4).toString().isEmpty()
                        && reply.get(5).toString().isEmpty()
                        && reply.get(6).toString().isEmpty()
                ? null
                : new Steering(whole(reply.get(4)), whole(reply.get(5)), whole(reply.get(6)));
        String limit = reply.get(0).toString();
        if (limit.isEmpty()) {
            return steering == null ? null : new Status(0, null, 1, steering, List.of());
        }
        List<Window> windows = new ArrayList<>();
        for (String entry : reply.get(3).toString().split(";")) {
            if (entry.isEmpty()) {
                continue;
            }
            String[] parts = entry.split(" ");
            windows.add(new Window(
                    Long.parseLong(parts[0]),
                    Integer.parseInt(parts[1]),
                    Long.parseLong(parts[2]),
                    Long.parseLong(parts[3]),
                    Long.parseLong(parts[4]),
                    Long.parseLong(parts[5]),
                    AdaptiveSlots.micros(Long.parseLong(parts[6]))));
        }
        return new Status(
                Math.max(1, (int) Math.floor(Double.parseDouble(limit))),
                AdaptiveSlots.micros(Long.parseLong(reply.get(1).toString())),
                Math.max(1, Integer.parseInt(reply.get(2).toString())),
                steering,
                windows);
    }

    private static @Nullable Integer whole(Object field) {
        String text = field.toString();
        return text.isEmpty() ? null : Integer.valueOf(text);
    }

    @Override
    public void steer(String name, ClientIdentifier identifier, @Nullable Steering steering) {
        String holders = adaptiveHolders(name, identifier);
        executor.call(ADAPTIVE_STEER, List.of(holders + ":operator"), new Object[] {
            steering == null || steering.pin() == null ? "" : steering.pin().toString(),
            steering == null || steering.min() == null ? "" : steering.min().toString(),
            steering == null || steering.max() == null ? "" : steering.max().toString()
        });
    }

    @Override
    public void close() {
        watchdog.shutdownNow();
    }
}
