package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.SlotHolder;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.fixtures.Stalls;
import io.github.ratelimit.redis.RedisGuard;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;

/**
 * Waiting for room ({@link RateLimiter#tryAcquire(List, Duration)}) on a real Redis, from two clients as two instances
 * would: callers refused together hold slots one apart, so each asks once and is admitted at its slot; the limit holds
 * exactly on Redis's clock; a call whose advice lies beyond its deadline is refused at once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WaitingTest {

    private static final int CALLERS = 20;

    RedissonClient clientOne;
    RedissonClient clientTwo;
    RedisRateLimiter one;
    RedisRateLimiter two;
    final java.util.Map<RateLimitListener.Wait, AtomicInteger> waits = new java.util.concurrent.ConcurrentHashMap<>();

    @BeforeAll
    void start() {
        clientOne = SharedRedis.get().newClient();
        clientTwo = SharedRedis.get().newClient();
        one = new RedisRateLimiter(
                clientOne, "ratelimit:", new RedisGuard(Duration.ofSeconds(5), 5, Duration.ofSeconds(1)), 10, 0);
        two = new RedisRateLimiter(
                clientTwo, "ratelimit:", new RedisGuard(Duration.ofSeconds(5), 5, Duration.ofSeconds(1)), 10, 0);
        RateLimitListener counting = new RateLimitListener() {
            @Override
            public void waited(List<LimitRequest> requests, Wait outcome, Duration waited) {
                waits.computeIfAbsent(outcome, o -> new AtomicInteger()).incrementAndGet();
            }
        };
        one.events().add(counting);
        two.events().add(counting);
    }

    private int waits(RateLimitListener.Wait outcome) {
        AtomicInteger count = waits.get(outcome);
        return count == null ? 0 : count.get();
    }

    @AfterAll
    void stop() {
        clientOne.shutdown();
        clientTwo.shutdown();
    }

    /** 20 threads, blocking, on two instances: all admitted, at most 5 in any second of Redis time, few Redis calls. */
    @Test
    void waitersOnTwoInstancesAreAllAdmittedWithinTheLimitAskingRedisAFewTimesEach() throws Exception {
        RateLimit limit = RateLimit.of("wait-" + UUID.randomUUID(), Algorithm.SLIDING_WINDOW, 5, 1_000);
        List<LimitRequest> call = List.of(LimitRequest.of(limit, "client", 1));
        Counting[] instances = {new Counting(one), new Counting(two)};
        ExecutorService threads = Executors.newFixedThreadPool(CALLERS);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Decision>> decisions = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                Counting instance = instances[i % 2];
                decisions.add(threads.submit(() -> {
                    go.await();
                    return instance.tryAcquire(call, Duration.ofSeconds(10));
                }));
            }
            go.countDown();
            List<Decision> answers = new ArrayList<>();
            for (Future<Decision> decision : decisions) {
                answers.add(decision.get(30, TimeUnit.SECONDS));
            }
            assertAdmittedWithinTheLimit(answers, instances);
        } finally {
            threads.shutdownNow();
        }
    }

    /** The same without blocking: every wait a timer. */
    @Test
    void asyncWaitersAreAllAdmittedWithinTheLimitToo() throws Exception {
        RateLimit limit = RateLimit.of("wait-async-" + UUID.randomUUID(), Algorithm.SLIDING_WINDOW, 5, 1_000);
        List<LimitRequest> call = List.of(LimitRequest.of(limit, "client", 1));
        Counting[] instances = {new Counting(one), new Counting(two)};
        List<CompletableFuture<Decision>> pending = new ArrayList<>();
        for (int i = 0; i < CALLERS; i++) {
            pending.add(instances[i % 2]
                    .tryAcquireAsync(call, Duration.ofSeconds(10))
                    .toCompletableFuture());
        }
        List<Decision> answers = new ArrayList<>();
        for (CompletableFuture<Decision> decision : pending) {
            answers.add(decision.get(30, TimeUnit.SECONDS));
        }
        assertAdmittedWithinTheLimit(answers, instances);
    }

    /** A limit of 1 per minute, a wait of half a second: the second call is refused at once, after one decision. */
    @Test
    void aCallThatCouldNotBeAdmittedBeforeItsDeadlineIsRefusedAtOnce() {
        RateLimit limit = RateLimit.of("wait-late-" + UUID.randomUUID(), Algorithm.SLIDING_WINDOW, 1, 60_000);
        List<LimitRequest> call = List.of(LimitRequest.of(limit, "client", 1));
        Counting instance = new Counting(one);
        Decision first = instance.tryAcquire(call, Duration.ofMillis(500));
        assertThat(first.allowed()).as("%s", first).isTrue();

        Decision refused = instance.tryAcquire(call, Duration.ofMillis(500));
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).isGreaterThan(Duration.ofSeconds(50));
        assertThat(instance.calls.get()).isEqualTo(2);
        assertThat(instance.tryAcquireAsync(call, Duration.ofMillis(500))
                        .toCompletableFuture()
                        .join()
                        .allowed())
                .isFalse();
        assertThat(instance.calls.get()).isEqualTo(3);
    }

    private static void assertAdmittedWithinTheLimit(List<Decision> answers, Counting[] instances) {
        assertThat(answers).allMatch(Decision::allowed);
        // returned when the slot has come: nothing more to wait, and the window counted from the slot
        assertThat(answers).allSatisfy(decision -> {
            assertThat(decision.startsIn()).isZero();
            assertThat(decision.outcomes().get(0).resetAfter()).isLessThanOrEqualTo(Duration.ofSeconds(1));
        });
        // on Redis's clock, no second holds more than 5 admissions
        List<Instant> admitted =
                answers.stream().map(Decision::decidedAt).sorted().toList();
        for (int i = 5; i < admitted.size(); i++) {
            assertThat(Duration.between(admitted.get(i - 5), admitted.get(i)))
                    .as("admissions %d and %d of %s", i - 5, i, admitted)
                    .isGreaterThanOrEqualTo(Duration.ofMillis(1_000));
        }
        int calls = instances[0].calls.get() + instances[1].calls.get();
        System.out.printf(
                "%d waiting calls took %d Redis decisions, %s to %s%n",
                CALLERS, calls, admitted.get(0), admitted.get(admitted.size() - 1));
        // each caller asks once: the 5 admitted at once, and the 15 others each told its slot and holding it
        assertThat(calls).as("Redis decisions for %d calls", CALLERS).isEqualTo(CALLERS);
    }

    /**
     * One call a second: a second caller holds the next second's slot, then an operator resets the limit, which
     * deletes the slot with the counts. When the slot comes the caller decides again (and is admitted into the emptied
     * limit, counted), so no third call is admitted within its window: going on uncounted would have let one in.
     */
    @Test
    void aSlotHeldAcrossAResetIsDecidedAgainWhenItComes() throws Exception {
        RateLimit limit = RateLimit.of("wait-reset-" + UUID.randomUUID(), Algorithm.SLIDING_WINDOW, 1, 1_000);
        List<LimitRequest> call = List.of(LimitRequest.of(limit, "client", 1));
        Counting instance = new Counting(one);
        assertThat(instance.tryAcquire(call).allowed()).isTrue();

        CompletableFuture<Decision> waiting =
                instance.tryAcquireAsync(call, Duration.ofSeconds(5)).toCompletableFuture();
        io.github.ratelimit.test.kit.Poll.until("the next second held", Duration.ofSeconds(10), () -> {
            io.github.ratelimit.core.Usage usage = one.usage(call);
            return Duration.between(usage.readAt(), usage.windows().get(0).resetsAt())
                            .compareTo(Duration.ofMillis(1_000))
                    > 0;
        });
        one.reset(limit, call.get(0).identifier());

        Decision second = waiting.get(10, TimeUnit.SECONDS);
        assertThat(second.allowed()).isTrue();
        assertThat(instance.calls.get())
                .as("decisions: the first call, the hold, the second ask")
                .isEqualTo(3);
        Decision third = one.tryAcquire(call);
        assertThat(!third.allowed()
                        || !Duration.between(second.decidedAt(), third.decidedAt())
                                .minus(limit.window())
                                .isNegative())
                .as("a third call admitted within the second's window: %s after %s", third, second)
                .isTrue();
    }

    /** A limiter counting the decisions it asks Redis for, as one instance; it holds slots as its delegate does. */
    private static final class Counting implements RateLimiter, SlotHolder {

        private final RedisRateLimiter delegate;
        private final AtomicInteger calls = new AtomicInteger();

        Counting(RedisRateLimiter delegate) {
            this.delegate = delegate;
        }

        @Override
        public Held hold(List<LimitRequest> requests, Duration within) {
            calls.incrementAndGet();
            return delegate.hold(requests, within);
        }

        @Override
        public CompletionStage<Held> holdAsync(List<LimitRequest> requests, Duration within) {
            calls.incrementAndGet();
            return delegate.holdAsync(requests, within);
        }

        @Override
        public Decision tryAcquire(List<LimitRequest> requests) {
            calls.incrementAndGet();
            return delegate.tryAcquire(requests);
        }

        @Override
        public CompletionStage<Decision> tryAcquireAsync(List<LimitRequest> requests) {
            calls.incrementAndGet();
            return delegate.tryAcquireAsync(requests);
        }
    }

    /**
     * 14 callers at once on 2 per second, each waiting up to 5 s (the README's promise): every caller is admitted
     * within its 5 s or refused at once, never refused after waiting; and the slots the 5 s hold are used. On each
     * algorithm, blocking, from two instances; the listeners are told each outcome. (Before waiting callers asked for
     * their earliest retry when their slot had slipped, 2 of 14 were refused after waiting 2.5 and 4.0 s.)
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aWaitingCallIsRefusedOnlyAtOnce(Algorithm algorithm) throws Exception {
        RateLimit limit = RateLimit.of("wait-promise-" + UUID.randomUUID(), algorithm, 2, 1_000);
        List<LimitRequest> call = List.of(LimitRequest.of(limit, "client", 1));
        RateLimiter[] instances = {one, two};
        ExecutorService threads = Executors.newFixedThreadPool(14);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<long[]>> outcomes = new ArrayList<>();
            for (int i = 0; i < 14; i++) {
                RateLimiter instance = instances[i % 2];
                outcomes.add(threads.submit(() -> {
                    go.await();
                    long started = System.nanoTime();
                    Decision decision = instance.tryAcquire(call, Duration.ofSeconds(5));
                    return new long[] {decision.allowed() ? 1 : 0, (System.nanoTime() - started) / 1_000_000};
                }));
            }
            // read before the callers go: the first admissions are told within microseconds of the latch
            int[] before = {
                waits(RateLimitListener.Wait.ADMITTED),
                waits(RateLimitListener.Wait.REFUSED_AT_ONCE),
                waits(RateLimitListener.Wait.REFUSED_AFTER_WAITING)
            };
            Stalls stalls = Stalls.watch();
            go.countDown();
            int admitted = 0;
            List<Long> refusedMs = new ArrayList<>();
            for (Future<long[]> outcome : outcomes) {
                long[] o = outcome.get(30, TimeUnit.SECONDS);
                if (o[0] == 1) {
                    admitted++;
                    assertThat(o[1])
                            .as("an admitted caller's wait, ms (%s)", stalls)
                            .isLessThanOrEqualTo(stalls.allowing(5_000));
                } else {
                    refusedMs.add(o[1]);
                }
            }
            stalls.close();
            // how each refusal ended is what the waiting told the listeners, not a guess from its time
            int told = waits(RateLimitListener.Wait.ADMITTED) - before[0];
            int refusedAtOnce = waits(RateLimitListener.Wait.REFUSED_AT_ONCE) - before[1];
            int refusedAfter = waits(RateLimitListener.Wait.REFUSED_AFTER_WAITING) - before[2];
            System.out.printf(
                    "%s: 14 callers on 2/s waiting 5 s: %d admitted, %d refused at once, %d after waiting (refused in %s ms)%n",
                    algorithm, admitted, refusedAtOnce, refusedAfter, refusedMs);
            assertThat(new int[] {told, refusedAtOnce + refusedAfter})
                    .as("admitted and refused, as told to listeners")
                    .containsExactly(admitted, refusedMs.size());
            assertThat(refusedAfter)
                    .as("callers refused after waiting (a fixed window's last slot may fall on its edge)")
                    .isLessThanOrEqualTo(algorithm == Algorithm.FIXED_WINDOW ? 1 : 0);
            // 2 at once and 2 per second for 5 s: at least 10 (the last second's slots may fall just past 5 s)
            assertThat(admitted).as("admitted").isGreaterThanOrEqualTo(10);
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * A waiting call of two sliding windows of one name (2/s and 3 per 2 s): every ask, first and after waiting, is
     * counted in the windows' own keys (a caller asking again unstaggered would be counted in the key of several
     * windows, a second counter), so on Redis's clock no second holds more than 2 admissions and no two seconds more
     * than 3.
     */
    @Test
    void waitersOfSeveralWindowsAreCountedInOneSetOfKeys() throws Exception {
        String name = "wait-two-" + UUID.randomUUID();
        List<LimitRequest> call = List.of(
                LimitRequest.of(RateLimit.of(name, Algorithm.SLIDING_WINDOW, 2, 1_000), "client", 1),
                LimitRequest.of(RateLimit.of(name, Algorithm.SLIDING_WINDOW, 3, 2_000), "client", 1));
        RateLimiter[] instances = {one, two};
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<Decision>> decisions = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (int i = 0; i < 8; i++) {
                RateLimiter instance = instances[i % 2];
                decisions.add(threads.submit(() -> {
                    go.await();
                    return instance.tryAcquire(call, Duration.ofSeconds(4));
                }));
            }
            go.countDown();
            List<Instant> admitted = new ArrayList<>();
            for (Future<Decision> decision : decisions) {
                Decision decided = decision.get(30, TimeUnit.SECONDS);
                if (decided.allowed()) {
                    admitted.add(decided.decidedAt());
                }
            }
            admitted.sort(null);
            assertThat(admitted).hasSizeGreaterThanOrEqualTo(4);
            for (int i = 2; i < admitted.size(); i++) {
                assertThat(Duration.between(admitted.get(i - 2), admitted.get(i)))
                        .as("admissions %d and %d of %s", i - 2, i, admitted)
                        .isGreaterThanOrEqualTo(Duration.ofMillis(1_000));
            }
            for (int i = 3; i < admitted.size(); i++) {
                assertThat(Duration.between(admitted.get(i - 3), admitted.get(i)))
                        .as("admissions %d and %d of %s", i - 3, i, admitted)
                        .isGreaterThanOrEqualTo(Duration.ofMillis(2_000));
            }
            List<Object> several =
                    io.github.ratelimit.fixtures.RedisCommands.call(clientOne, "KEYS", "*" + name + ":swm/*");
            assertThat(several).as("keys of several windows").isEmpty();
        } finally {
            threads.shutdownNow();
        }
    }
}
