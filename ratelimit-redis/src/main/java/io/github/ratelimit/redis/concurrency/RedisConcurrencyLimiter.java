package io.github.ratelimit.redis.concurrency;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
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
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Concurrency limits in Redis: per key a sorted set of holders scored by the end of their lease (Redis time); a slot is
 * taken by one script that first drops expired leases, renewed by a watchdog while held (up to its maximum lifetime),
 * and given back by removing exactly its owner.
 */
public final class RedisConcurrencyLimiter implements ConcurrencyLimiter, RateLimitEvents.Source, AutoCloseable {

    private final RateLimitEvents events = new RateLimitEvents();

    private static final Logger log = LoggerFactory.getLogger(RedisConcurrencyLimiter.class);

    static final LuaScript ACQUIRE = LuaScript.load(RedisConcurrencyLimiter.class, "concurrency_acquire");
    static final LuaScript RELEASE = LuaScript.load(RedisConcurrencyLimiter.class, "concurrency_release");
    static final LuaScript GIVE_BACK = LuaScript.load(RedisConcurrencyLimiter.class, "concurrency_giveback");
    static final LuaScript RENEW = LuaScript.load(RedisConcurrencyLimiter.class, "concurrency_renew");

    /** Calls end whenever they end: a refused caller is told to come back in a second. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final ScriptExecutor executor;
    private final RedisKeys keys;
    private final long ownerPrefix = new SecureRandom().nextLong();
    private final AtomicLong owners = new AtomicLong();
    private final ScheduledExecutorService watchdog;

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
            String holders = RedisConcurrencyLimiter.this.keys.concurrencyKey(name, RedisKeys.tag(identifier));
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
            RedisPermit permit = new RedisPermit(name, (String) keys.get(0), owner, lease, maxLifetime);
            permit.scheduleRenewal();
            return permit;
        }
    }

    /** A held slot: renewed until released or its maximum lifetime; released once. */
    private final class RedisPermit implements Permit {
        private final String name;
        private final String key;
        private final String owner;
        private final Duration lease;
        private final long endOfLife;
        private final AtomicBoolean released = new AtomicBoolean();
        private volatile @Nullable ScheduledFuture<?> renewal;

        RedisPermit(String name, String key, String owner, Duration lease, Duration maxLifetime) {
            this.name = name;
            this.key = key;
            this.owner = owner;
            this.lease = lease;
            this.endOfLife = System.nanoTime() + maxLifetime.toNanos();
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
            if (!released.compareAndSet(false, true)) {
                return false;
            }
            stopRenewal();
            try {
                return ScriptExecutor.number(executor.call(RELEASE, List.of(key), new Object[] {owner})
                                .get(0))
                        == 1;
            } catch (RedisUnavailableException e) {
                releaseLater();
                return false;
            }
        }

        /**
         * A release Redis did not answer is sent again until it is (idempotent: it removes this owner only), so that
         * the slot comes back before its lease ends; counted and, when it still fails, logged by {@link GiveBacks}.
         */
        private void releaseLater() {
            GiveBacks.send(
                    events,
                    "slot",
                    () -> executor.callAsync(RELEASE, List.of(key), new Object[] {owner}),
                    reply -> ScriptExecutor.number(reply.get(0)) == 1);
        }

        @Override
        public CompletableFuture<Boolean> releaseAsync() {
            if (!released.compareAndSet(false, true)) {
                return CompletableFuture.completedFuture(false);
            }
            stopRenewal();
            return executor.callAsync(RELEASE, List.of(key), new Object[] {owner})
                    .handle((reply, error) -> {
                        if (error != null) {
                            if (Futures.cause(error) instanceof RedisUnavailableException) {
                                releaseLater();
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
    public void close() {
        watchdog.shutdownNow();
    }
}
