package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.RedisKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.client.codec.StringCodec;

/** The rate limiter's promises, run on a single Redis and on a Redis Cluster alike. */
abstract class RateLimiterContract extends TwoRateLimiters {

    /** 64 threads on two clients: with a window far longer than the run, exactly `limit` calls get through. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void admitsExactlyTheLimitUnderConcurrencyAcrossInstances(Algorithm algorithm) throws Exception {
        RateLimit limit = RateLimit.of("exact-" + algorithm, algorithm, 50, 3_600_000);
        String id = fresh();
        int threads = 64;
        int callsPerThread = 25;
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            RedisRateLimiter limiter = t % 2 == 0 ? instanceA : instanceB;
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < callsPerThread; i++) {
                    (acquire(limiter, limit, id).allowed() ? admitted : rejected).incrementAndGet();
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> future : futures) {
            future.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();

        assertThat(admitted.get()).isEqualTo(50);
        assertThat(rejected.get()).isEqualTo(threads * callsPerThread - 50);
    }

    /**
     * A plan's quota is per caller and may change between calls: 32 threads on two clients get exactly the free plan's
     * 2; after an upgrade to pro (20) exactly the difference, 18, at once; after a downgrade nothing, since what was
     * counted stays counted. The counts belong to the group, not to the plan.
     */
    @ParameterizedTest
    @EnumSource(
            value = Algorithm.class,
            names = {"SLIDING_WINDOW", "FIXED_WINDOW"})
    void aPlanChangeKeepsTheCountsAndAnUpgradeAddsTheDifference(Algorithm algorithm) throws Exception {
        RateLimit group = RateLimit.of("reports-" + algorithm, algorithm, 1, 3_600_000);
        RateLimit free = group.forPlan("free", 2);
        RateLimit pro = group.forPlan("pro", 20);
        String customer = fresh();

        assertThat(admittedConcurrently(free, customer, 32)).isEqualTo(2);
        assertThat(admittedConcurrently(pro, customer, 32)).isEqualTo(18);
        Decision downgraded = acquire(instanceA, free, customer);
        assertThat(downgraded.allowed()).isFalse();
        assertThat(downgraded.outcomes().get(0).remaining()).isZero();

        // a downgrade mid-window keeps what was counted: 5 of pro's 20 used leaves free (2) with nothing
        String other = fresh();
        assertThat(admittedConcurrently(pro, other, 5)).isEqualTo(5);
        assertThat(acquire(instanceB, free, other).allowed()).isFalse();
        assertThat(admittedConcurrently(pro, other, 32)).isEqualTo(15);
    }

    /** A plan may not count with a token bucket, whose state cannot carry a count across a change of quota. */
    @Test
    void aTokenBucketPlanIsRefusedWithAMessage() {
        assertThatThrownBy(() -> RateLimit.of("exports", Algorithm.TOKEN_BUCKET, 5, 1_000)
                        .forPlan("free", 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("plan 'free' of group 'exports' uses TOKEN_BUCKET");
    }

    /** `calls` threads, alternating between the two instances, each asking once at the same moment. */
    int admittedConcurrently(RateLimit limit, String id, int calls) throws Exception {
        return admittedConcurrently(List.of(LimitRequest.of(limit, id, 1)), calls, 1);
    }

    /**
     * `threads` threads, half on each instance, each making `callsPerThread` calls of the same requests once all are
     * started; returns how many calls were admitted.
     */
    int admittedConcurrently(List<LimitRequest> call, int threads, int callsPerThread) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            RedisRateLimiter limiter = t % 2 == 0 ? instanceA : instanceB;
            futures.add(pool.submit(() -> {
                go.await();
                int admitted = 0;
                for (int i = 0; i < callsPerThread; i++) {
                    admitted += limiter.tryAcquire(call).allowed() ? 1 : 0;
                }
                return admitted;
            }));
        }
        go.countDown();
        int admitted = 0;
        for (Future<Integer> future : futures) {
            admitted += future.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        return admitted;
    }

    /**
     * The sliding window's promise, checked on the Redis clock: no interval of windowMs holds more than limit. The
     * threads call for four windows and at least until more than twice the limit was admitted, however long a call
     * takes on the machine.
     */
    @Test
    void slidingWindowNeverAdmitsMoreThanTheLimitInAnyInterval() throws Exception {
        int limit = 20;
        long window = 300;
        RateLimit rateLimit = RateLimit.of("sliding-any", Algorithm.SLIDING_WINDOW, limit, window);
        String id = fresh();
        List<Long> admittedAt = Collections.synchronizedList(new ArrayList<>());
        long until = RedisCommands.timeMs(clientA) + 4 * window;
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            RedisRateLimiter limiter = t % 2 == 0 ? instanceA : instanceB;
            futures.add(pool.submit(() -> {
                while (true) {
                    Decision d = acquire(limiter, rateLimit, id);
                    if (d.decidedAt().toEpochMilli() > until && admittedAt.size() > 2 * limit) {
                        return null;
                    }
                    if (d.allowed()) {
                        admittedAt.add(d.decidedAt().toEpochMilli());
                    }
                }
            }));
        }
        for (Future<?> future : futures) {
            future.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();

        List<Long> times = new ArrayList<>(admittedAt);
        Collections.sort(times);
        assertThat(times.size()).isGreaterThan(2 * limit);
        for (int i = 0; i + limit < times.size(); i++) {
            assertThat(times.get(i + limit) - times.get(i))
                    .as("admissions %d and %d", i, i + limit)
                    .isGreaterThanOrEqualTo(window);
        }
    }

    /**
     * A sliding window's edge, on Redis's clock as the test stops and moves it: 16 threads on two instances get exactly
     * the limit at one moment, however their calls interleave and however long they take; a millisecond before the
     * window has passed none more; at its edge exactly the limit again. (The window is used to the full.)
     */
    @Test
    void aSlidingWindowAdmitsExactlyItsLimitUntilItsEdge() throws Exception {
        int limit = 20;
        long window = 60_000;
        String id = fresh();
        List<LimitRequest> call =
                List.of(LimitRequest.of(RateLimit.of("sliding-edge", Algorithm.SLIDING_WINDOW, limit, window), id, 1));
        Instant start = Instant.ofEpochMilli(RedisCommands.timeMs(clientA));
        try {
            redisClockAt(start);
            assertThat(admittedConcurrently(call, 16, 3)).isEqualTo(limit);

            redisClockMovesTo(start.plusMillis(window - 1), id);
            assertThat(admittedConcurrently(call, 16, 3)).isZero();

            redisClockMovesTo(start.plusMillis(window), id);
            assertThat(admittedConcurrently(call, 16, 3)).isEqualTo(limit);
        } finally {
            TestClock.real(clientA, instanceA, instanceB);
        }
    }

    /**
     * Entries spaced in time leave one by one: each refusal names the moment the oldest live entry leaves, and
     * at that moment exactly one call fits again (the script keeps the oldest live entry in the key's header).
     */
    @Test
    void slidingWindowFreesRoomExactlyAsEachEntryLeaves() {
        long window = 600;
        long spacing = 150;
        RateLimit limit = RateLimit.of("sliding-steps", Algorithm.SLIDING_WINDOW, 3, window);
        String id = fresh();
        List<Long> admittedAt = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Decision admitted = acquire(instanceA, limit, id);
            assertThat(admitted.allowed()).isTrue();
            admittedAt.add(admitted.decidedAt().toEpochMilli());
            awaitRedisTime(admitted.decidedAt().toEpochMilli() + spacing);
        }
        for (int round = 0; round < 4; round++) {
            long leaves = admittedAt.get(round) + window;
            Decision early = acquire(instanceA, limit, id);
            if (early.decidedAt().toEpochMilli() < leaves) { // unless this machine stalled for a whole spacing
                assertThat(early.allowed())
                        .as("round %d, before the oldest entry leaves", round)
                        .isFalse();
                assertThat(early.decidedAt().toEpochMilli() + early.retryAfter().toMillis())
                        .isEqualTo(leaves);
            }
            Decision admitted;
            if (early.allowed()) { // this machine stalled past the moment: the early call was the one that fit
                assertThat(early.decidedAt().toEpochMilli())
                        .as("round %d, admitted early", round)
                        .isGreaterThanOrEqualTo(leaves);
                admitted = early;
            } else {
                awaitRedisTime(leaves);
                admitted = acquire(instanceA, limit, id);
            }
            assertThat(admitted.allowed())
                    .as("round %d, once the oldest entry left", round)
                    .isTrue();
            if (admitted.decidedAt().toEpochMilli() < admittedAt.get(round + 1) + window) {
                assertThat(admitted.remaining()).isZero();
            }
            admittedAt.add(admitted.decidedAt().toEpochMilli());
        }
    }

    /** A rejected call takes nothing: the limit with room keeps all of it, even under a hammering client. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void rejectedMultiLimitCallConsumesNothing(Algorithm algorithm) throws Exception {
        RateLimit small = RateLimit.of("small-" + algorithm, Algorithm.FIXED_WINDOW, 3, 3_600_000);
        RateLimit large = RateLimit.of("large-" + algorithm, algorithm, 10, 3_600_000);
        String id = fresh();
        List<LimitRequest> both = List.of(LimitRequest.of(small, id, 1), LimitRequest.of(large, id, 1));
        for (int i = 0; i < 3; i++) {
            assertThat(instanceA.tryAcquire(both).allowed()).isTrue();
        }
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<Boolean>> futures = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            RedisRateLimiter limiter = i % 2 == 0 ? instanceA : instanceB;
            futures.add(pool.submit(() -> limiter.tryAcquire(both).allowed()));
        }
        for (Future<Boolean> future : futures) {
            assertThat(future.get(60, TimeUnit.SECONDS)).isFalse();
        }
        pool.shutdown();

        Decision rejected = instanceB.tryAcquire(both);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.outcomes().get(0).allowed()).isFalse();
        if (!rejected.servedLocally()) { // a refusal served in the JVM lists only the limit that refused
            assertThat(rejected.outcomes().get(1).allowed()).isTrue();
            assertThat(rejected.outcomes().get(1).remaining()).isEqualTo(7);
        }
        int admittedAlone = 0;
        while (acquire(instanceA, large, id).allowed()) {
            admittedAlone++;
        }
        assertThat(admittedAlone).isEqualTo(7);
    }

    /** An identifier whose hash slot differs from {@code other}'s (on a cluster, the call spans two slots). */
    static String freshInAnotherSlotThan(String other) {
        String id = fresh();
        while (RedisKeys.slot(RedisKeys.tag(id)) == RedisKeys.slot(RedisKeys.tag(other))) {
            id = fresh();
        }
        return id;
    }

    /**
     * The scenario: a user exhausts their limit from address A; 5 further calls of that user from address B
     * are refused, and B then still admits exactly its 10 fresh users, because the refused calls took nothing from B
     * (on a cluster the user and B fall into different slots: what B's slot took is given back).
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aCallRefusedForTheUserTakesNothingFromTheAddress(Algorithm algorithm) {
        RateLimit perUser = RateLimit.of("user-" + algorithm, algorithm, 5, 3_600_000);
        RateLimit perIp = RateLimit.of("ip-" + algorithm, algorithm, 10, 3_600_000);
        String user = fresh();
        String addressA = freshInAnotherSlotThan(user);
        String addressB = freshInAnotherSlotThan(user);
        // without local refusals, so that every refused call reaches Redis (and B's slot)
        List<RedisRateLimiter> instances = List.of(
                new RedisRateLimiter(clientA, "ratelimit:", Guards.patient(), 10, 0),
                new RedisRateLimiter(clientB, "ratelimit:", Guards.patient(), 10, 0));
        for (int i = 0; i < 5; i++) {
            assertThat(call(instances.get(0), perUser, user, perIp, addressA).allowed())
                    .isTrue();
        }
        for (int i = 0; i < 5; i++) {
            Decision refused = call(instances.get(i % 2), perUser, user, perIp, addressB);
            assertThat(refused.allowed()).isFalse();
            assertThat(refused.outcomes().get(1).remaining())
                    .as("what the address's limit reports after the refusal")
                    .isEqualTo(10);
        }
        int fresh = 0;
        for (int i = 0; i < 15; i++) {
            String freshUser = freshInAnotherSlotThan(addressB);
            if (call(instances.get(i % 2), perUser, freshUser, perIp, addressB).allowed()) {
                fresh++;
            }
        }
        assertThat(fresh).isEqualTo(10);
    }

    private static Decision call(RedisRateLimiter limiter, RateLimit a, String idA, RateLimit b, String idB) {
        return limiter.tryAcquire(List.of(LimitRequest.of(a, idA, 1), LimitRequest.of(b, idB, 1)));
    }

    /**
     * 64 threads on two clients, 16 users and 4 addresses mixed: no identifier ever admits more than its limit, and once
     * the calls are done every identifier has counted exactly the admitted calls that named it (refused calls took
     * nothing, wherever their identifiers' slots are).
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void mixedUsersAndAddressesCountExactlyTheAdmittedCalls(Algorithm algorithm) throws Exception {
        RateLimit perUser = RateLimit.of("mixed-user-" + algorithm, algorithm, 3, 3_600_000);
        RateLimit perIp = RateLimit.of("mixed-ip-" + algorithm, algorithm, 10, 3_600_000);
        List<String> users = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            users.add(fresh());
        }
        for (int i = 0; i < 4; i++) {
            addresses.add(fresh());
        }
        int threads = 64;
        int callsPerThread = 8;
        AtomicIntegerArray admittedPerUser = new AtomicIntegerArray(users.size());
        AtomicIntegerArray admittedPerIp = new AtomicIntegerArray(addresses.size());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            RedisRateLimiter limiter = t % 2 == 0 ? instanceA : instanceB;
            int thread = t;
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < callsPerThread; i++) {
                    int u = (thread * 7 + i) % users.size();
                    int a = (thread + i * 3) % addresses.size();
                    if (call(limiter, perUser, users.get(u), perIp, addresses.get(a))
                            .allowed()) {
                        admittedPerUser.incrementAndGet(u);
                        admittedPerIp.incrementAndGet(a);
                    }
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> future : futures) {
            future.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();

        int total = 0;
        for (int u = 0; u < users.size(); u++) {
            assertThat(admittedPerUser.get(u)).isLessThanOrEqualTo(3);
            assertThat(remaining(perUser, users.get(u))).as("user %d", u).isEqualTo(3 - admittedPerUser.get(u));
            total += admittedPerUser.get(u);
        }
        for (int a = 0; a < addresses.size(); a++) {
            assertThat(admittedPerIp.get(a)).isLessThanOrEqualTo(10);
            assertThat(remaining(perIp, addresses.get(a))).as("address %d", a).isEqualTo(10 - admittedPerIp.get(a));
        }
        assertThat(total).isPositive();
    }

    /**
     * Sliding windows of one name and identifier are counted in one key: the seed's 3 windows x 2 identifiers write 2
     * keys, not 6. 64 threads on two clients, then one more caller until refused, get exactly what the tightest window
     * allows (here the middle one), and each window then reports exactly its limit minus the admitted calls.
     */
    @Test
    void severalWindowsOfOneIdentifierAreOneKeyAndExact() throws Exception {
        List<RateLimit> windows = List.of(
                RateLimit.of("seed", Algorithm.SLIDING_WINDOW, 10, 3_600_000),
                RateLimit.of("seed", Algorithm.SLIDING_WINDOW, 4, 7_200_000),
                RateLimit.of("seed", Algorithm.SLIDING_WINDOW, 20, 10_800_000));
        String ip = fresh();
        String user = freshInAnotherSlotThan(ip);
        List<LimitRequest> call = new ArrayList<>();
        for (RateLimit window : windows) {
            call.add(LimitRequest.of(window, ip, 1));
            call.add(LimitRequest.of(window, user, 1));
        }
        int admitted = admittedConcurrently(call, 64, 4);
        // on a cluster the two identifiers are two slots: calls refused in one gave back what the other took, and
        // concurrent calls may have been refused meanwhile, never admitted beyond the limit; what is left is still
        // there
        // (asked without local refusals: one that another instance's give-back made stale reaches this instance by
        // pub/sub, a moment later)
        RedisRateLimiter redisOnly = new RedisRateLimiter(clientA, "ratelimit:", Guards.patient(), 10, 0);
        int afterwards = 0;
        while (redisOnly.tryAcquire(call).allowed()) {
            afterwards++;
        }

        assertThat(admitted + afterwards).isEqualTo(4);
        RedisKeys keys = new RedisKeys("ratelimit:");
        List<String> written = new ArrayList<>();
        for (String id : List.of(ip, user)) {
            clientA.getKeys()
                    .getKeysByPattern("ratelimit:v5:{" + RedisKeys.tag(id) + "}:*")
                    .forEach(written::add);
        }
        written.removeIf(key -> key.contains("}:gb:")); // give-back markers of calls one slot refused (a cluster)
        assertThat(written)
                .containsExactlyInAnyOrder(
                        keys.severalWindowsKey("seed", RedisKeys.tag(ip), windows),
                        keys.severalWindowsKey("seed", RedisKeys.tag(user), windows));
        for (String key : written) { // expires with its longest window (3 h) and at most an eighth more
            long ttl = clientA.getBucket(key).remainTimeToLive();
            assertThat(ttl).as(key).isBetween(10_800_000L - 60_000, 10_800_000L * 9 / 8);
        }
        List<LimitRequest> probe = new ArrayList<>();
        for (LimitRequest request : call) {
            probe.add(LimitRequest.of(request.limit(), request.identifier(), 0));
        }
        Decision state = instanceB.tryAcquire(probe);
        assertThat(state.outcomes()).extracting(LimitOutcome::remaining).containsExactly(6L, 6L, 0L, 0L, 16L, 16L);
    }

    /**
     * A key of several windows whose ring fills hundreds of slots: 64 threads on two clients get exactly the tightest
     * window's limit, its 450 entries take 6 bytes each behind a 40-byte header, and each window then reports exactly
     * what is left.
     */
    @Test
    void aKeyOfSeveralWindowsWithALargeRingIsExact() throws Exception {
        List<RateLimit> windows = List.of(
                RateLimit.of("grown", Algorithm.SLIDING_WINDOW, 450, 3_600_000),
                RateLimit.of("grown", Algorithm.SLIDING_WINDOW, 600, 7_200_000));
        String id = fresh();
        List<LimitRequest> call =
                List.of(LimitRequest.of(windows.get(0), id, 1), LimitRequest.of(windows.get(1), id, 1));
        int admitted = admittedConcurrently(call, 64, 10);

        assertThat(admitted).isEqualTo(450);
        String key = new RedisKeys("ratelimit:").severalWindowsKey("grown", RedisKeys.tag(id), windows);
        assertThat(clientA.getBucket(key, StringCodec.INSTANCE).size()).isEqualTo(40 + 450 * 6);
        long ttl = clientA.getBucket(key).remainTimeToLive();
        assertThat(ttl).isBetween(7_200_000L - 60_000, 7_200_000L * 9 / 8);
        Decision state = new RedisRateLimiter(clientB, "ratelimit:", Guards.patient(), 10, 0)
                .tryAcquire(List.of(LimitRequest.of(windows.get(0), id, 0), LimitRequest.of(windows.get(1), id, 0)));
        assertThat(state.outcomes()).extracting(LimitOutcome::remaining).containsExactly(0L, 150L);
    }

    /**
     * Entries leave the short window of a key of several windows while the long window keeps them: twice, the short
     * window frees exactly when the entries of its three calls have left, and a refusal's retry time is exact to the
     * millisecond (the time of the entry that must leave, read from the ring, plus the window).
     */
    @Test
    void aKeyOfSeveralWindowsFreesItsShortWindowWhetherReadWholeOrNot() {
        RateLimit shortWindow = RateLimit.of("freed", Algorithm.SLIDING_WINDOW, 300, 2_000);
        RateLimit hour = RateLimit.of("freed", Algorithm.SLIDING_WINDOW, 1_000, 3_600_000);
        String id = fresh();
        RedisRateLimiter noLocal = new RedisRateLimiter(clientA, "ratelimit:", Guards.patient(), 10, 0);
        List<LimitRequest> hundred = List.of(LimitRequest.of(shortWindow, id, 100), LimitRequest.of(hour, id, 100));
        List<LimitRequest> look = List.of(LimitRequest.of(shortWindow, id, 0), LimitRequest.of(hour, id, 0));
        String key =
                new RedisKeys("ratelimit:").severalWindowsKey("freed", RedisKeys.tag(id), List.of(shortWindow, hour));

        for (int round = 1; round <= 2; round++) {
            long firstAt = 0;
            long lastAt = 0;
            for (int i = 1; i <= 3; i++) {
                Decision admitted = noLocal.tryAcquire(hundred);
                assertThat(admitted.allowed()).as("round %d, call %d", round, i).isTrue();
                lastAt = admitted.decidedAt().toEpochMilli();
                firstAt = i == 1 ? lastAt : firstAt;
            }
            Decision refused = noLocal.tryAcquire(hundred);
            if (refused.decidedAt().toEpochMilli() < firstAt + 2_000) {
                assertThat(refused.allowed()).as("round %d", round).isFalse();
                assertThat(refused.outcomes())
                        .extracting(LimitOutcome::remaining)
                        .containsExactly(0L, 1_000L - 300 * round);
                // the first call's 100 entries must leave: their time, written by that call, plus the window
                assertThat(refused.decidedAt().toEpochMilli()
                                + refused.retryAfter().toMillis())
                        .isEqualTo(firstAt + 2_000);
            }
            awaitRedisTime(lastAt + 2_000);
            assertThat(noLocal.tryAcquire(look).outcomes())
                    .extracting(LimitOutcome::remaining)
                    .containsExactly(300L, 1_000L - 300 * round);
            assertThat(clientA.getBucket(key, StringCodec.INSTANCE).size()).isEqualTo(40 + 300 * round * 6);
        }
    }

    /**
     * Regression: a call whose windows come longest first, with another identifier's limit between them (on a cluster in
     * another slot), gets each outcome for its own request, in the order asked, and is counted right in every window.
     */
    @Test
    void windowsAskedLongestFirstAmongOtherLimitsAnswerInTheOrderAsked() {
        RateLimit hour = RateLimit.of("order", Algorithm.SLIDING_WINDOW, 5, 3_600_000);
        RateLimit minute = RateLimit.of("order", Algorithm.SLIDING_WINDOW, 3, 60_000);
        RateLimit other = RateLimit.of("order-user", Algorithm.FIXED_WINDOW, 7, 60_000);
        String ip = fresh();
        String user = freshInAnotherSlotThan(ip);
        List<LimitRequest> call =
                List.of(LimitRequest.of(hour, ip, 1), LimitRequest.of(other, user, 1), LimitRequest.of(minute, ip, 1));

        for (int i = 1; i <= 3; i++) {
            Decision decision = instanceA.tryAcquire(call);

            assertThat(decision.allowed()).isTrue();
            assertThat(decision.outcomes()).extracting(LimitOutcome::request).containsExactlyElementsOf(call);
            assertThat(decision.outcomes()).extracting(LimitOutcome::remaining).containsExactly(5L - i, 7L - i, 3L - i);
            assertThat(decision.outcomes().get(0).resetAfter()).isEqualTo(hour.window());
            assertThat(decision.outcomes().get(2).resetAfter()).isEqualTo(minute.window());
        }
        Decision refused = instanceB.tryAcquire(call);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.outcomes()).extracting(LimitOutcome::allowed).containsExactly(true, true, false);
        assertThat(refused.outcomes()).extracting(LimitOutcome::remaining).containsExactly(2L, 4L, 0L);
    }

    /** A reset of one window of a key of several forgets the identifier's counts of that name. */
    @Test
    void aResetForgetsAKeyOfSeveralWindows() {
        RateLimit second = RateLimit.of("several-reset", Algorithm.SLIDING_WINDOW, 2, 1_000_000);
        RateLimit minute = RateLimit.of("several-reset", Algorithm.SLIDING_WINDOW, 3, 2_000_000);
        String id = fresh();
        List<LimitRequest> call = List.of(LimitRequest.of(second, id, 1), LimitRequest.of(minute, id, 1));
        RedisRateLimiter noLocal = new RedisRateLimiter(clientA, "ratelimit:", Guards.patient(), 10, 0);
        assertThat(noLocal.tryAcquire(call).allowed()).isTrue();
        assertThat(noLocal.tryAcquire(call).allowed()).isTrue();
        assertThat(noLocal.tryAcquire(call).allowed()).isFalse();
        noLocal.reset(minute, ClientIdentifier.of(id));
        assertThat(noLocal.tryAcquire(call).allowed()).isTrue();
        assertThat(noLocal.tryAcquire(call).allowed()).isTrue();
        assertThat(noLocal.tryAcquire(call).allowed()).isFalse();
    }

    /** The cross-slot scenario with two windows per identifier: the address still admits exactly its 10. */
    @Test
    void aCallRefusedForTheUserTakesNothingFromTheAddressesWindows() {
        RateLimit userHour = RateLimit.of("user-two", Algorithm.SLIDING_WINDOW, 5, 3_600_000);
        RateLimit userDay = RateLimit.of("user-two", Algorithm.SLIDING_WINDOW, 7, 86_400_000);
        RateLimit ipHour = RateLimit.of("ip-two", Algorithm.SLIDING_WINDOW, 10, 3_600_000);
        RateLimit ipDay = RateLimit.of("ip-two", Algorithm.SLIDING_WINDOW, 12, 86_400_000);
        String user = fresh();
        String address = freshInAnotherSlotThan(user);
        RedisRateLimiter noLocal = new RedisRateLimiter(clientA, "ratelimit:", Guards.patient(), 10, 0);
        for (int i = 0; i < 5; i++) {
            assertThat(noLocal.tryAcquire(twoWindows(userHour, userDay, user, ipHour, ipDay, fresh()))
                            .allowed())
                    .isTrue();
        }
        for (int i = 0; i < 5; i++) {
            Decision refused = noLocal.tryAcquire(twoWindows(userHour, userDay, user, ipHour, ipDay, address));
            assertThat(refused.allowed()).isFalse();
            assertThat(refused.outcomes()).extracting(LimitOutcome::remaining).containsExactly(0L, 2L, 10L, 12L);
        }
        int admitted = 0;
        for (int i = 0; i < 15; i++) {
            String freshUser = freshInAnotherSlotThan(address);
            if (noLocal.tryAcquire(twoWindows(userHour, userDay, freshUser, ipHour, ipDay, address))
                    .allowed()) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(10);
        assertThat(remaining(ipDay, address)).isEqualTo(12); // asked alone: its own key, untouched
    }

    static List<LimitRequest> twoWindows(
            RateLimit userHour, RateLimit userDay, String user, RateLimit ipHour, RateLimit ipDay, String ip) {
        return List.of(
                LimitRequest.of(userHour, user, 1),
                LimitRequest.of(userDay, user, 1),
                LimitRequest.of(ipHour, ip, 1),
                LimitRequest.of(ipDay, ip, 1));
    }

    /** What a limit has left for an identifier, asked without taking anything. */
    long remaining(RateLimit limit, String id) {
        return instanceA.tryAcquire(List.of(LimitRequest.of(limit, id, 0))).remaining();
    }

    @Test
    void recoversFromScriptFlushWithoutErrors() {
        RateLimit limit = RateLimit.of("flush", Algorithm.SLIDING_WINDOW, 5, 60_000);
        String id = fresh();
        assertThat(acquire(instanceA, limit, id).allowed()).isTrue();
        clientB.getScript().scriptFlush();

        Decision afterFlush = acquire(instanceA, limit, id);

        assertThat(afterFlush.allowed()).isTrue();
        assertThat(afterFlush.remaining()).isEqualTo(3);
    }

    @Test
    void decisionTimeIsTheRedisServersClock() {
        RateLimit limit = RateLimit.of("clock", Algorithm.TOKEN_BUCKET, 5, 60_000);
        long before = RedisCommands.timeMs(clientA);
        Decision decision = acquire(instanceA, limit, fresh());
        long after = RedisCommands.timeMs(clientA);
        assertThat(decision.decidedAt().toEpochMilli()).isBetween(before, after);
    }

    /** Waiting exactly retryAfter (on the Redis clock) succeeds; a retry before that fails. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void retryAfterIsExact(Algorithm algorithm) {
        RateLimit limit = RateLimit.of("retry-" + algorithm, algorithm, 3, 600);
        String id = fresh();
        Decision rejected;
        do {
            rejected = acquire(instanceA, limit, id);
        } while (rejected.allowed());
        long retryAt =
                rejected.decidedAt().toEpochMilli() + rejected.retryAfter().toMillis();
        // the fixed window adds 2 ms for PTTL being read after the decision time (see decide/fixed.lua)
        long longest = algorithm == Algorithm.FIXED_WINDOW ? 600L + 2 : 600L + 1;
        assertThat(rejected.retryAfter().toMillis()).isBetween(1L, longest);

        awaitRedisTime(retryAt - 40);
        Decision early = acquire(instanceA, limit, id);
        if (early.decidedAt().toEpochMilli() < retryAt) {
            assertThat(early.allowed())
                    .as("a retry %d ms early", retryAt - early.decidedAt().toEpochMilli())
                    .isFalse();
        }
        awaitRedisTime(retryAt);
        assertThat(acquire(instanceA, limit, id).allowed()).isTrue();
    }

    void awaitRedisTime(long epochMs) {
        RedisCommands.awaitTimeMs(clientA, epochMs);
    }

    static long adviceAt(Decision decision) {
        return decision.decidedAt().toEpochMilli() + decision.retryAfter().toMillis();
    }

    /**
     * Staggered advice: callers refused one after another are told times exactly one slot (window / limit) apart,
     * the first of them the earliest time the call could be admitted, which an earliest-advice refusal reports too.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void staggeredAdviceSpreadsRefusedCallersOneSlotApartFromTheEarliestTime(Algorithm algorithm) {
        RateLimit limit = RateLimit.of("stagger-" + algorithm, algorithm, 5, 10_000);
        // the fixed window's earliest time comes from PTTL, read a millisecond apart from TIME at most
        long slack = algorithm == Algorithm.FIXED_WINDOW ? 1 : 0;
        String id = fresh();
        for (int i = 0; i < 5; i++) {
            assertThat(acquire(instanceA, limit, id).allowed()).isTrue();
        }
        Decision earliest = acquire(instanceA, limit, id);
        assertThat(earliest.allowed()).isFalse();
        long previous = 0;
        for (int i = 0; i < 6; i++) {
            RedisRateLimiter instance = i % 2 == 0 ? instanceA : instanceB;
            Decision refused = instance.tryAcquire(
                    List.of(LimitRequest.of(limit, id, 1).asShadow(false).asStaggered(true)));
            assertThat(refused.allowed()).isFalse();
            assertThat(refused.outcomes().get(0).adviceCapped()).isFalse();
            if (i == 0) {
                assertThat(adviceAt(refused)).isCloseTo(adviceAt(earliest), within(slack));
            } else {
                assertThat(adviceAt(refused)).isEqualTo(previous + 2_000);
            }
            previous = adviceAt(refused);
        }
        // earliest advice is left as it was: every earliest caller is still told the same time
        assertThat(adviceAt(acquire(instanceB, limit, id))).isCloseTo(adviceAt(earliest), within(slack));
    }

    /** The advice never reaches beyond the horizon (here one window): callers past it are told the horizon. */
    @Test
    void staggeredAdviceStopsAtTheHorizonAndSaysSo() {
        RedisRateLimiter oneWindow = new RedisRateLimiter(
                clientA, "ratelimit:", new RedisGuard(Duration.ofSeconds(5), 5, Duration.ofSeconds(1)), 1);
        RateLimit limit = RateLimit.of("horizon", Algorithm.SLIDING_WINDOW, 2, 60_000);
        String id = fresh();
        oneWindow.tryAcquire(List.of(LimitRequest.of(limit, id, 2)));
        Decision first = oneWindow.tryAcquire(
                List.of(LimitRequest.of(limit, id, 1).asShadow(false).asStaggered(true)));
        Decision second = oneWindow.tryAcquire(
                List.of(LimitRequest.of(limit, id, 1).asShadow(false).asStaggered(true)));
        Decision third = oneWindow.tryAcquire(
                List.of(LimitRequest.of(limit, id, 1).asShadow(false).asStaggered(true)));
        assertThat(first.outcomes().get(0).adviceCapped()).isFalse();
        // the earliest retry is a full window away: the horizon of one window allows nothing later
        assertThat(second.outcomes().get(0).adviceCapped()).isTrue();
        assertThat(third.outcomes().get(0).adviceCapped()).isTrue();
        assertThat(adviceAt(second)).isLessThanOrEqualTo(second.decidedAt().toEpochMilli() + 60_000);
        assertThat(adviceAt(second)).isGreaterThanOrEqualTo(adviceAt(first));
    }

    /** A refused staggered call still takes nothing, and the cursor is one key that expires at its advice. */
    @Test
    void staggeredRefusalsTakeNothingAndLeaveOneExpiringCursor() {
        RateLimit limit = RateLimit.of("stagger-cursor", Algorithm.FIXED_WINDOW, 3, 5_000);
        RateLimit other = RateLimit.of("stagger-cursor-other", Algorithm.FIXED_WINDOW, 100, 5_000);
        String id = fresh();
        instanceA.tryAcquire(List.of(LimitRequest.of(limit, id, 3)));
        for (int i = 0; i < 20; i++) {
            Decision refused = instanceA.tryAcquire(List.of(
                    LimitRequest.of(limit, id, 1).asShadow(false).asStaggered(true),
                    LimitRequest.of(other, id, 1).asShadow(false).asStaggered(true)));
            assertThat(refused.allowed()).isFalse();
        }
        // all or nothing: the limit with room took nothing from twenty refused calls
        Decision probe = instanceA.tryAcquire(List.of(LimitRequest.of(other, id, 0)));
        assertThat(probe.outcomes().get(0).remaining()).isEqualTo(100);
        String key = new RedisKeys("ratelimit:").rateLimitKey(limit, RedisKeys.tag(id));
        long pttl = RedisCommands.<Long>onKey(clientA, "PTTL", RedisKeys.adviceCursor(key));
        assertThat(pttl).isPositive().isLessThanOrEqualTo(RedisRateLimiter.DEFAULT_HORIZON_WINDOWS * 5_000L);
        String otherKey = new RedisKeys("ratelimit:").rateLimitKey(other, RedisKeys.tag(id));
        assertThat(RedisCommands.<Long>onKey(clientA, "PTTL", RedisKeys.adviceCursor(otherKey)))
                .as("no cursor for a limit that did not refuse")
                .isEqualTo(-2L);
    }

    /** Calls until a refusal is served locally (the instance listens for resets and has cached the refusal). */
    static Decision untilServedLocally(RedisRateLimiter limiter, RateLimit limit, String id) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() - deadline < 0) {
            Decision decision = acquire(limiter, limit, id);
            assertThat(decision.allowed()).isFalse();
            if (decision.servedLocally()) {
                return decision;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no refusal served locally within 5 s");
    }

    /**
     * A reset on one instance drops the local refusals of every instance before it returns: the next call on either
     * instance is admitted at once. (It used to return once announced, and the other instance's next call could still
     * be refused from its memory.)
     */
    @Test
    void aResetOnOneInstanceDropsTheLocalRefusalsOfEveryInstance() throws Exception {
        RateLimit limit = RateLimit.of("local-reset", Algorithm.FIXED_WINDOW, 2, 3_600_000);
        String id = fresh();
        acquire(instanceA, limit, id);
        acquire(instanceB, limit, id);
        untilServedLocally(instanceA, limit, id);
        untilServedLocally(instanceB, limit, id);
        instanceA.reset(limit, ClientIdentifier.of(id));
        assertThat(acquire(instanceA, limit, id).allowed())
                .as("the resetting instance, at once")
                .isTrue();
        // the reset returned once every instance that remembers refusals had forgotten them: no wait here
        assertThat(acquire(instanceB, limit, id).allowed())
                .as("the other instance, at once")
                .isTrue();
        assertThat(acquire(instanceB, limit, id).allowed())
                .as("exactly the limit after the reset")
                .isFalse();
    }

    /**
     * Many threads on two instances hammer a fixed window that is full, across the moment it frees up: local
     * refusals never refuse what Redis would admit, so the next window admits exactly its limit. The threads stop
     * before a third window can open, on Redis's clock as the first window's reset tells it (a window of two seconds
     * starts at its first admitted call), however long the first calls took.
     */
    @Test
    void localRefusalsAdmitExactlyTheLimitWhenTheWindowFreesUp() throws Exception {
        RateLimit limit = RateLimit.of("local-race", Algorithm.FIXED_WINDOW, 5, 2_000);
        String id = fresh();
        for (int i = 0; i < 4; i++) {
            assertThat(acquire(instanceA, limit, id).allowed()).isTrue();
        }
        long sent = System.nanoTime();
        Decision fifth = acquire(instanceA, limit, id);
        assertThat(fifth.allowed()).isTrue();
        // the second window opens at the first's end or later and lasts 2 s: until then plus 1.8 s, no third one
        long stopAt = sent + fifth.outcomes().get(0).resetAfter().toNanos() + TimeUnit.MILLISECONDS.toNanos(1_800);
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger local = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            List<Future<?>> futures = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (int t = 0; t < 32; t++) {
                RedisRateLimiter instance = t % 2 == 0 ? instanceA : instanceB;
                futures.add(pool.submit(() -> {
                    go.await();
                    while (System.nanoTime() - stopAt < 0) {
                        Decision decision = acquire(instance, limit, id);
                        if (decision.allowed()) {
                            admitted.incrementAndGet();
                        } else if (decision.servedLocally()) {
                            local.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> future : futures) {
                future.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(admitted.get()).as("the second window's admissions").isEqualTo(5);
        assertThat(local.get()).as("refusals served locally").isPositive();
    }
}
