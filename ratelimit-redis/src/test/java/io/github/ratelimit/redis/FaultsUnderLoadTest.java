package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter.Permit;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import io.github.ratelimit.fixtures.Stalls;
import io.github.ratelimit.redis.concurrency.RedisConcurrencyLimiter;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import io.github.ratelimit.test.kit.Poll;
import io.github.ratelimit.test.support.RawRedis;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Faults under load, on real Redis processes: a master with a replica, three Redisson clients as three instances,
 * twelve threads using tokens, locks, concurrency slots and a rate limit while, one after the other, the replica is
 * frozen and resumed, the master is frozen past the budget and resumed, and every client connection is killed
 * ({@code CLIENT KILL}). Then: no token used twice; no token lost (each token nobody was told consumed works once
 * now); never two holders of one lock; no slot left taken (releases Redis did not answer are sent again); never more
 * admitted than the limit. Prints the counts. A restart that loses Redis's data is a crash (what it held is gone): its
 * own test shows every instance deciding again and nothing held twice.
 */
class FaultsUnderLoadTest {

    /** 250 ms, more on a busy machine: calls must be answered in time while Redis answers. Faults last longer. */
    static final Duration BUDGET = Stalls.budget(Duration.ofMillis(250));

    static final int INSTANCES = 3;
    static final int THREADS_PER_KIND = 3;
    static final long LIMIT = 200;

    record Instance(
            RedissonClient client,
            RedisSingleUseTokens tokens,
            RedisLockManager locks,
            RedisConcurrencyLimiter slots,
            RedisRateLimiter limiter) {

        /** One instance on the server: its own client and guard, uses and locks waiting {@code replicaWait}. */
        static Instance on(RedisProcess server, String prefix, Duration replicaWait) {
            RedissonClient client = server.newClient();
            RedisGuard guard = new RedisGuard(BUDGET, 1_000_000, Duration.ofMillis(10));
            return new Instance(
                    client,
                    new RedisSingleUseTokens(client, prefix, guard, replicaWait),
                    new RedisLockManager(client, prefix, guard, replicaWait),
                    new RedisConcurrencyLimiter(client, prefix, guard),
                    new RedisRateLimiter(client, prefix, guard));
        }

        void close() {
            locks.close();
            slots.close();
            client.shutdown();
        }
    }

    @Test
    void nothingIsUsedTwiceLostOrHeldTwiceWhileFaultsComeAndGo() throws Exception {
        try (RedisProcess master = RedisProcess.start();
                RedisProcess replica = RedisProcess.start(List.of("replicaof 127.0.0.1 " + master.port()))) {
            Poll.until("the replica in sync", Duration.ofSeconds(30), () -> RawRedis.command(
                            master.port(), "INFO", "replication")
                    .contains("connected_slaves:1"));
            String prefix = "faults:";
            List<Instance> instances = new ArrayList<>();
            AtomicLong givenBack = new AtomicLong();
            AtomicLong giveBacksFailed = new AtomicLong();
            RateLimitListener counting = new RateLimitListener() {
                @Override
                public void gaveBack(String what, GiveBack outcome) {
                    (outcome == GiveBack.FAILED ? giveBacksFailed : givenBack).incrementAndGet();
                }
            };
            for (int i = 0; i < INSTANCES; i++) {
                Instance instance = Instance.on(master, prefix, Duration.ofMillis(100));
                instance.tokens().events().add(counting);
                instance.locks().events().add(counting);
                instance.slots().events().add(counting);
                instances.add(instance);
            }

            // tokens issued before the run (by a patient instance: no fault yet), each presented by two threads of two
            // instances
            RedissonClient setupClient = master.newClient();
            RedisSingleUseTokens patient = new RedisSingleUseTokens(setupClient, prefix, Guards.patient());
            List<IssuedToken> tokens = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                tokens.add(patient.issue("fault", Map.of(), Duration.ofMinutes(10), 1));
            }
            Map<String, AtomicInteger> consumed = new ConcurrentHashMap<>();
            AtomicInteger nextToken = new AtomicInteger();
            Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
            AtomicInteger doubleHolders = new AtomicInteger();
            AtomicInteger maxInSlots = new AtomicInteger();
            AtomicInteger inSlots = new AtomicInteger();
            AtomicLong admitted = new AtomicLong();
            AtomicLong calls = new AtomicLong();
            AtomicLong unavailable = new AtomicLong();
            AtomicLong unavailableGiveBacks = new AtomicLong();
            AtomicLong none = new AtomicLong();
            RateLimit limit = RateLimit.of("faults", Algorithm.SLIDING_WINDOW, LIMIT, 600_000);
            ClientIdentifier user = ClientIdentifier.of("user", "everyone");
            AtomicBoolean running = new AtomicBoolean(true);
            ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
            ExecutorService pool = Executors.newFixedThreadPool(4 * THREADS_PER_KIND);
            CountDownLatch started = new CountDownLatch(4 * THREADS_PER_KIND);
            for (int t = 0; t < THREADS_PER_KIND; t++) {
                int thread = t;
                pool.execute(worker(started, running, unexpected, unavailable, unavailableGiveBacks, calls, () -> {
                    int n = nextToken.getAndIncrement() / 2 % tokens.size();
                    IssuedToken token = tokens.get(n);
                    Instance instance = instances.get((n + thread) % INSTANCES);
                    if (instance.tokens().consume("fault", token.token()).status() == Status.CONSUMED) {
                        consumed.computeIfAbsent(token.token(), k -> new AtomicInteger())
                                .incrementAndGet();
                    }
                }));
                Instance own = instances.get(thread % INSTANCES);
                pool.execute(worker(
                        started,
                        running,
                        unexpected,
                        unavailable,
                        unavailableGiveBacks,
                        calls,
                        lockCall(own, calls, holders, doubleHolders)));
                pool.execute(worker(
                        started,
                        running,
                        unexpected,
                        unavailable,
                        unavailableGiveBacks,
                        calls,
                        slotCall(own, user, inSlots, maxInSlots)));
                pool.execute(worker(started, running, unexpected, unavailable, none, calls, () -> {
                    Decision decision = instances
                            .get(thread % INSTANCES)
                            .limiter()
                            .tryAcquire(List.of(LimitRequest.of(limit, user, 1)));
                    if (decision.allowed()) {
                        admitted.incrementAndGet();
                    }
                }));
            }
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

            int faults = 0;
            Thread.sleep(300); // load before the first fault: calls in flight when it comes
            replica.freeze();
            Thread.sleep(BUDGET.toMillis() + 350);
            replica.thaw();
            faults++;
            Thread.sleep(300);
            master.freeze(); // past the budget
            Thread.sleep(BUDGET.toMillis() + 450);
            master.thaw();
            faults++;
            Thread.sleep(300);
            RawRedis.command(master.port(), "CLIENT", "KILL", "TYPE", "normal");
            faults++;
            Thread.sleep(500);
            running.set(false);
            pool.shutdown();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            assertThat(unexpected).isEmpty();

            // every call of a token, lock or slot that was answered unavailable sent one give-back; all are answered
            // (or given up) within their retry window
            long expectedGiveBacks = unavailableGiveBacks.get();
            Poll.until(
                    "every give-back answered",
                    Duration.ofSeconds(20),
                    () -> givenBack.get() + giveBacksFailed.get() >= expectedGiveBacks);
            String slotKey = new RedisKeys(prefix).concurrencyKey("reports", RedisKeys.tag(user));
            long slotsLeft = Long.parseLong(
                    RawRedis.command(master.port(), "ZCARD", slotKey).trim().substring(1));
            long doubleUses =
                    consumed.values().stream().filter(c -> c.get() > 1).count();
            long lost = 0;
            for (IssuedToken token : tokens) {
                if (!consumed.containsKey(token.token())) {
                    Status now = patient.consume("fault", token.token()).status();
                    if (now != Status.CONSUMED) {
                        lost++;
                    }
                }
            }
            System.out.printf(
                    "faults under load: %d calls, %d answered unavailable, %d faults; tokens %d used once, %d double"
                            + " uses, %d lost; locks: %d double holders; slots: at most %d of 2 held, %d left taken;"
                            + " rate limit: %d admitted of %d; give-backs: %d answered, %d failed%n",
                    calls.get(),
                    unavailable.get(),
                    faults,
                    consumed.size(),
                    doubleUses,
                    lost,
                    doubleHolders.get(),
                    maxInSlots.get(),
                    slotsLeft,
                    admitted.get(),
                    LIMIT,
                    givenBack.get(),
                    giveBacksFailed.get());
            assertThat(doubleUses).as("tokens used twice").isZero();
            assertThat(lost).as("tokens lost without a crash").isZero();
            assertThat(doubleHolders.get()).as("locks held by two").isZero();
            assertThat(maxInSlots.get()).as("slots held at once").isLessThanOrEqualTo(2);
            assertThat(slotsLeft).as("slots left taken").isZero();
            assertThat(admitted.get()).as("admitted by the limit").isLessThanOrEqualTo(LIMIT);

            instances.forEach(Instance::close);
            setupClient.shutdown();
        }
    }

    /**
     * Redis restarts empty (no persistence) under load: what it held is gone, as after any crash (tokens issued before,
     * counts). Three instances keep calling through the restart; afterwards every instance decides again without
     * being restarted, the rate limit counts afresh and never admits more than its limit after the restart, tokens
     * issued after it work exactly once, no lock has two holders, and no concurrency slot is left taken.
     */
    @Test
    void afterRedisRestartsEmptyEveryInstanceDecidesAgainAndNothingIsHeldTwice() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            String prefix = "restart:";
            List<Instance> instances = new ArrayList<>();
            for (int i = 0; i < INSTANCES; i++) {
                instances.add(Instance.on(redis, prefix, Duration.ZERO));
            }
            RateLimit limit = RateLimit.of("restart", Algorithm.SLIDING_WINDOW, LIMIT, 600_000);
            ClientIdentifier user = ClientIdentifier.of("user", "everyone");
            Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
            AtomicInteger doubleHolders = new AtomicInteger();
            AtomicInteger inSlots = new AtomicInteger();
            AtomicInteger maxInSlots = new AtomicInteger();
            AtomicBoolean restarted = new AtomicBoolean();
            AtomicLong admittedAfter = new AtomicLong();
            AtomicLong admittedBefore = new AtomicLong();
            AtomicLong calls = new AtomicLong();
            AtomicLong unavailable = new AtomicLong();
            AtomicLong ignored = new AtomicLong();
            AtomicBoolean running = new AtomicBoolean(true);
            ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
            ExecutorService pool = Executors.newFixedThreadPool(3 * THREADS_PER_KIND);
            CountDownLatch started = new CountDownLatch(3 * THREADS_PER_KIND);
            for (int t = 0; t < THREADS_PER_KIND; t++) {
                Instance instance = instances.get(t % INSTANCES);
                pool.execute(worker(
                        started,
                        running,
                        unexpected,
                        unavailable,
                        ignored,
                        calls,
                        lockCall(instance, calls, holders, doubleHolders)));
                pool.execute(worker(
                        started,
                        running,
                        unexpected,
                        unavailable,
                        ignored,
                        calls,
                        slotCall(instance, user, inSlots, maxInSlots)));
                pool.execute(worker(started, running, unexpected, unavailable, ignored, calls, () -> {
                    boolean after = restarted.get();
                    Decision decision = instance.limiter().tryAcquire(List.of(LimitRequest.of(limit, user, 1)));
                    if (decision.allowed()) {
                        (after ? admittedAfter : admittedBefore).incrementAndGet();
                    }
                }));
            }
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(300);
            redis.restart(); // no persistence: the counts, locks, slots and scripts are gone
            restarted.set(true);
            long restartedAt = System.nanoTime();
            for (Instance instance : instances) {
                Poll.until("an instance deciding again after the restart", Duration.ofSeconds(30), () -> {
                    try {
                        instance.limiter()
                                .tryAcquire(List.of(LimitRequest.of(limit, ClientIdentifier.of("user", "probe"), 1)));
                        return true;
                    } catch (RedisUnavailableException e) {
                        return false;
                    }
                });
            }
            long recoveredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedAt);
            Thread.sleep(500); // load after the restart
            running.set(false);
            pool.shutdown();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            assertThat(unexpected).isEmpty();

            IssuedToken token = instances.get(0).tokens().issue("after", Map.of(), Duration.ofMinutes(1), 1);
            assertThat(instances.get(1).tokens().consume("after", token.token()).status())
                    .isEqualTo(Status.CONSUMED);
            assertThat(instances.get(2).tokens().consume("after", token.token()).status())
                    .isEqualTo(Status.ALREADY_USED);
            String slotKey = new RedisKeys(prefix).concurrencyKey("reports", RedisKeys.tag(user));
            long slotsLeft = Long.parseLong(
                    RawRedis.command(redis.port(), "ZCARD", slotKey).trim().substring(1));
            System.out.printf(
                    "restart empty under load: %d calls, %d answered unavailable; every instance decided again %d ms"
                            + " after the restart; rate limit: %d admitted before, %d after (limit %d, counted"
                            + " afresh); locks: %d double holders; slots: at most %d of 2 held, %d left taken%n",
                    calls.get(),
                    unavailable.get(),
                    recoveredMs,
                    admittedBefore.get(),
                    admittedAfter.get(),
                    LIMIT,
                    doubleHolders.get(),
                    maxInSlots.get(),
                    slotsLeft);
            assertThat(admittedAfter.get()).as("admitted after the restart").isLessThanOrEqualTo(LIMIT);
            assertThat(doubleHolders.get()).as("locks held by two").isZero();
            assertThat(maxInSlots.get()).as("slots held at once").isLessThanOrEqualTo(2);
            assertThat(slotsLeft).as("slots left taken").isZero();

            instances.forEach(Instance::close);
        }
    }

    /** Takes one of four locks and counts a second holder of it, if there ever is one. */
    private static Call lockCall(
            Instance instance, AtomicLong calls, Map<String, AtomicInteger> holders, AtomicInteger doubleHolders) {
        return () -> {
            String key = "job-" + (calls.get() % 4);
            try (LockHandle lock = instance.locks().tryAcquire(key, LockOptions.lease(Duration.ofSeconds(30)))) {
                if (holders.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() > 1) {
                    doubleHolders.incrementAndGet();
                }
                holders.get(key).decrementAndGet();
            } catch (LockNotAcquiredException busy) {
                // another holder: fine
            }
        };
    }

    /** Takes one of two concurrency slots and records how many are held at once. */
    private static Call slotCall(
            Instance instance, ClientIdentifier user, AtomicInteger inSlots, AtomicInteger maxInSlots) {
        return () -> {
            try {
                Permit permit =
                        instance.slots().tryAcquire("reports", user, 2, Duration.ofSeconds(30), Duration.ofSeconds(30));
                maxInSlots.accumulateAndGet(inSlots.incrementAndGet(), Math::max);
                inSlots.decrementAndGet();
                permit.release();
            } catch (ConcurrencyLimitExceededException full) {
                // all taken: fine
            }
        };
    }

    interface Call {
        void run() throws Exception;
    }

    /** Calls until told to stop; Redis being unavailable is expected while faults come, anything else is not. */
    private static Runnable worker(
            CountDownLatch started,
            AtomicBoolean running,
            ConcurrentLinkedQueue<Throwable> unexpected,
            AtomicLong unavailable,
            AtomicLong giveBacks,
            AtomicLong calls,
            Call call) {
        return () -> {
            started.countDown();
            while (running.get()) {
                calls.incrementAndGet();
                try {
                    call.run();
                } catch (RedisUnavailableException e) {
                    unavailable.incrementAndGet();
                    giveBacks.incrementAndGet(); // what the call may have taken is being given back
                } catch (Throwable e) {
                    unexpected.add(e);
                    return;
                }
            }
        };
    }
}
