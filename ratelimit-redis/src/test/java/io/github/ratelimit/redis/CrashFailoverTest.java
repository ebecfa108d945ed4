package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import io.github.ratelimit.test.support.RawRedis;
import io.github.ratelimit.test.support.RedisClusterProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

/**
 * A master of a real Redis Cluster (three masters, each with a replica) killed with SIGKILL while two application
 * instances redeem tokens and take locks as fast as they can, its replica lagging (frozen with SIGSTOP and its link cut for
 * the last 150 uses before the crash, then promoted with what it had): with the replica acknowledgement on, no token works twice and
 * no lock is granted to a second holder. The same load with the acknowledgement off, against another master, loses
 * uses and grants that were reported as done: printed, and asserted to happen (that is what the acknowledgement is
 * for).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CrashFailoverTest {

    static final int TOKENS = 1_500;
    static final int LOCKS = 400;
    static final int THREADS = 16;

    RedisClusterProcess cluster;
    RedissonClient clientA;
    RedissonClient clientB;

    @BeforeAll
    void start() {
        cluster = RedisClusterProcess.start();
        clientA = cluster.newClient();
        clientB = cluster.newClient();
    }

    @AfterAll
    void stop() {
        clientA.shutdown();
        clientB.shutdown();
        cluster.close();
    }

    @Test
    void withReplicaAcknowledgementNoTokenWorksTwiceAndNoLockIsHeldTwice() throws Exception {
        Outcome on = crashUnderLoad(0, Duration.ofMillis(300), "acknowledged");
        System.out.printf("SIGKILL of a master, replica acknowledgement on: %s%n", on);
        assertThat(on.unavailable).as("calls the crash left without an answer").isPositive();
        assertThat(on.tokensUsedTwice).isZero();
        assertThat(on.locksHeldTwice).isZero();
        assertThat(on.consumed).isPositive();

        Outcome off = crashUnderLoad(1, Duration.ZERO, "unacknowledged");
        System.out.printf("SIGKILL of a master, replica acknowledgement off: %s%n", off);
        // what the acknowledgement prevents: uses and grants the crash lost, reported as done, working again
        assertThat(off.tokensUsedTwice + off.locksHeldTwice).isPositive();
    }

    /** What one crash under load did. */
    record Outcome(
            long consumed,
            long tokensUsedTwice,
            long tokensNeverReported,
            long locksGranted,
            long locksHeldTwice,
            long unavailable,
            long failoverMs) {

        @Override
        public String toString() {
            return String.format(
                    "%d uses, %d tokens used twice, %d used up without a reported use; %d locks granted, %d granted"
                            + " twice; %d calls answered unavailable; failover took %d ms",
                    consumed,
                    tokensUsedTwice,
                    tokensNeverReported,
                    locksGranted,
                    locksHeldTwice,
                    unavailable,
                    failoverMs);
        }
    }

    Outcome crashUnderLoad(int master, Duration replicaWait, String purpose) throws Exception {
        List<Instance> instances = List.of(new Instance(clientA, replicaWait), new Instance(clientB, replicaWait));
        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < TOKENS; i++) {
            IssuedToken token = instances.get(0).tokens.issue(purpose, Map.of(), Duration.ofMinutes(10), 1);
            tokens.add(token.token());
        }
        cluster.awaitReplicated(); // every token exists on the replicas before the crash
        AtomicIntegerArray uses = new AtomicIntegerArray(TOKENS);
        AtomicIntegerArray grants = new AtomicIntegerArray(LOCKS);
        AtomicLong unavailable = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch going = new CountDownLatch(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> futures = new ArrayList<>();
        LockOptions lease = LockOptions.lease(Duration.ofMinutes(5));
        for (int t = 0; t < THREADS; t++) {
            Instance instance = instances.get(t % 2);
            futures.add(pool.submit(() -> {
                going.countDown();
                ThreadLocalRandom random = ThreadLocalRandom.current();
                Set<Integer> holding = new HashSet<>(); // locks are re-entrant per thread: not asked for again
                while (!stop.get()) {
                    try {
                        int i = random.nextInt(TOKENS);
                        if (instance.tokens.consume(purpose, tokens.get(i)).status() == Status.CONSUMED) {
                            uses.incrementAndGet(i);
                        }
                        int k = random.nextInt(LOCKS);
                        if (holding.contains(k)) {
                            continue;
                        }
                        LockHandle lock = instance.locks.tryAcquire(purpose + "-lock-" + k, lease);
                        grants.incrementAndGet(k); // held for five minutes: never released, never granted again
                        holding.add(k);
                        assertThat(lock.isHeld()).isTrue();
                    } catch (RedisUnavailableException e) {
                        unavailable.incrementAndGet();
                    } catch (LockNotAcquiredException e) {
                        // held by another: as it should be
                    }
                }
                return null;
            }));
        }
        going.await();
        awaitUses(uses, TOKENS / 10);
        // the replica lags: frozen, and its link cut by the master (which then holds back what it writes), while the
        // load goes on; then the master crashes and the replica takes over with what it had. Replication is
        // asynchronous; the frozen replica makes the lag long enough to see.
        int replica = cluster.replicaPorts().get(master);
        long frozen = RedisClusterProcess.freeze(replica);
        long crashedAt;
        try {
            int victim = cluster.masterPorts().get(master);
            RawRedis.command(victim, "CLIENT", "KILL", "TYPE", "replica");
            long cut = RawRedis.infoNumber(victim, "replication", "master_repl_offset");
            awaitUses(uses, TOKENS / 10 + 150);
            awaitWrites(victim, cut + 4_096); // this master itself wrote what its replica will never get
            crashedAt = System.nanoTime();
            cluster.killMaster(master);
        } finally {
            RedisClusterProcess.thaw(frozen);
        }
        RedisClusterProcess.awaitPromoted(replica);
        long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashedAt);
        // keep going until the instances have decided on the promoted replica for a while
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        stop.set(true);
        for (Future<?> future : futures) {
            future.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        instances.forEach(Instance::close);
        // an instance without the acknowledgement (which the promoted master, now without a replica, would refuse)
        // tries every token and every granted lock once more: a use or a grant the crash lost works again now
        Instance verifier = new Instance(clientA, Duration.ZERO);
        for (int i = 0; i < TOKENS; i++) {
            int token = i;
            if (answered(
                    () -> verifier.tokens.consume(purpose, tokens.get(token)).status() == Status.CONSUMED)) {
                uses.incrementAndGet(i);
            }
        }
        for (int k = 0; k < LOCKS; k++) {
            String key = purpose + "-lock-" + k;
            if (grants.get(k) > 0
                    && answered(() -> {
                        try {
                            verifier.locks.tryAcquire(key, lease);
                            return true;
                        } catch (LockNotAcquiredException e) {
                            return false;
                        }
                    })) {
                grants.incrementAndGet(k);
            }
        }
        verifier.close();
        long consumed = 0;
        long usedTwice = 0;
        long neverReported = 0;
        for (int i = 0; i < TOKENS; i++) {
            consumed += uses.get(i);
            usedTwice += uses.get(i) > 1 ? 1 : 0;
            neverReported += uses.get(i) == 0 ? 1 : 0;
        }
        long granted = 0;
        long heldTwice = 0;
        for (int k = 0; k < LOCKS; k++) {
            granted += grants.get(k);
            heldTwice += grants.get(k) > 1 ? 1 : 0;
        }
        return new Outcome(consumed, usedTwice, neverReported, granted, heldTwice, unavailable.get(), failoverMs);
    }

    /** The answer of a call, asked again while the cluster still settles (Redis unavailable), for up to 30 s. */
    static boolean answered(java.util.function.BooleanSupplier call) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return call.getAsBoolean();
            } catch (RedisUnavailableException e) {
                assertThat(System.nanoTime()).as("answered: %s", e.getMessage()).isLessThan(deadline);
            }
        }
    }

    /** Until the master on {@code port} has written up to {@code offset} of its replication stream. */
    static void awaitWrites(int port, long offset) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (RawRedis.infoNumber(port, "replication", "master_repl_offset") < offset) {
            assertThat(System.nanoTime()).as("writes on the master").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** Until {@code count} tokens are used. */
    static void awaitUses(AtomicIntegerArray uses, int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            int used = 0;
            for (int i = 0; i < uses.length(); i++) {
                used += uses.get(i) > 0 ? 1 : 0;
            }
            if (used >= count) {
                return;
            }
            assertThat(System.nanoTime()).as("load started").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** One application instance: its client's tokens and locks, with or without the replica acknowledgement. */
    static final class Instance implements AutoCloseable {

        final RedisSingleUseTokens tokens;
        final RedisLockManager locks;

        Instance(RedissonClient client, Duration replicaWait) {
            RedisGuard guard = new RedisGuard(Duration.ofSeconds(1), 1_000_000, Duration.ofMillis(10));
            tokens = new RedisSingleUseTokens(client, "ratelimit:", guard, replicaWait);
            locks = new RedisLockManager(client, "ratelimit:", guard, replicaWait);
        }

        @Override
        public void close() {
            locks.close();
        }
    }
}
