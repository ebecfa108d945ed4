package io.github.ratelimit.test.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The promises of a {@link RateLimiter}, for any store: extend it in a test of your own, make the limiter in
 * {@link #newInstance()}, and every test here runs against it. Two instances made by one test class stand for two
 * instances of an application; where they share their counts ({@link #instancesShareState()}), every promise is checked
 * across both, with real threads on each.
 *
 * <p>What every limiter promises: exactly the limit is admitted under any concurrency; the requests of one call are
 * decided together (all or nothing) and a refused call takes nothing from any limit; a call's cost counts as that many
 * calls; a shadow limit reports without refusing; retry advice is never too early (a call made once the advised time has
 * passed is admitted when nothing else took the room).
 *
 * <p>Each test uses limit names and identifiers of its own, so the store need not be emptied between tests.
 */
public abstract class RateLimiterContract extends TwoInstances<RateLimiter> {

    /**
     * What advice may add to a window: a store may round up by a few milliseconds so that waiting the advice always
     * suffices (Redis deletes a key a millisecond after its time to live ends).
     */
    private static final Duration MARGIN = Duration.ofMillis(5);

    private static Decision call(RateLimiter limiter, LimitRequest... requests) {
        return limiter.tryAcquire(List.of(requests));
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void admitsExactlyTheLimitUnderConcurrency(Algorithm algorithm) throws Exception {
        RateLimit limit = RateLimit.of(fresh("exact"), algorithm, 50, 3_600_000);
        String id = fresh("user");
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();

        Threads.run(32, 25, (thread, i) -> {
            boolean allowed =
                    call(instance(thread), LimitRequest.of(limit, id, 1)).allowed();
            (allowed ? admitted : refused).incrementAndGet();
        });

        assertThat(admitted.get()).isEqualTo(50);
        assertThat(refused.get()).isEqualTo(32 * 25 - 50);
    }

    /**
     * Calls of two limits race calls of one of them: a call of both is admitted only when both have room, and takes
     * from both; a refused one takes from neither, so what the first limit has left afterwards is exactly its limit
     * less the calls of both that were admitted.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void theRequestsOfOneCallAreAllOrNothingUnderConcurrency(Algorithm algorithm) throws Exception {
        RateLimit perUser = RateLimit.of(fresh("user-limit"), algorithm, 10, 3_600_000);
        RateLimit perAddress = RateLimit.of(fresh("address-limit"), algorithm, 15, 3_600_000);
        String user = fresh("user");
        String address = fresh("address");
        AtomicInteger both = new AtomicInteger();
        AtomicInteger addressOnly = new AtomicInteger();

        Threads.run(32, 10, (thread, i) -> {
            if (thread % 3 == 0) {
                if (call(instance(thread), LimitRequest.of(perAddress, address, 1))
                        .allowed()) {
                    addressOnly.incrementAndGet();
                }
            } else if (call(
                            instance(thread),
                            LimitRequest.of(perUser, user, 1),
                            LimitRequest.of(perAddress, address, 1))
                    .allowed()) {
                both.incrementAndGet();
            }
        });

        if (callsAreAtomic()) {
            assertThat(both.get() + addressOnly.get()).as("the address's limit").isEqualTo(15);
        } else {
            assertThat(both.get() + addressOnly.get()).as("the address's limit").isBetween(1, 15);
        }
        assertThat(both.get()).isLessThanOrEqualTo(10);
        // read by an instance that took no part: what the store holds, not a refusal an instance keeps in memory for a
        // moment after racing the others (on a Redis Cluster, one met while another call gave back across slots,
        // forgotten when the give-back's announcement arrives)
        RateLimiter reader = instancesShareState() ? newInstance() : instance(0);
        assertThat(left(reader, perUser, user))
                .as("what the user's limit has left")
                .isEqualTo(10 - both.get());
        assertThat(left(reader, perAddress, address))
                .as("what the address's limit has left")
                .isEqualTo(15 - both.get() - addressOnly.get());
    }

    /**
     * Whether the requests of one call are decided in one atomic step wherever their counters are. Override with
     * {@code false} where they may be decided apart and a refused part gives back what the others took (a Redis
     * Cluster, for counters in different hash slots): a call that meets a counter while a give-back to it is on its way
     * is refused, so racing calls may leave a limit with room that nobody asked for again. What every store must show
     * is that refused calls take nothing, in the end.
     */
    protected boolean callsAreAtomic() {
        return true;
    }

    /** How many calls of cost 1 {@code limit} still admits for {@code id}, taking them all. */
    private static int left(RateLimiter reader, RateLimit limit, String id) {
        int left = 0;
        while (reader.tryAcquire(List.of(LimitRequest.of(limit, id, 1))).allowed()) {
            left++;
        }
        return left;
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRefusedCallTakesNothingFromAnyLimit(Algorithm algorithm) {
        RateLimit tight = RateLimit.of(fresh("tight"), algorithm, 1, 3_600_000);
        RateLimit roomy = RateLimit.of(fresh("roomy"), algorithm, 3, 3_600_000);
        String id = fresh("user");
        assertThat(call(instance(0), LimitRequest.of(tight, id, 1)).allowed()).isTrue();

        for (int i = 0; i < 5; i++) {
            Decision refused = call(instance(i), LimitRequest.of(tight, id, 1), LimitRequest.of(roomy, id, 1));
            assertThat(refused.allowed()).isFalse();
            assertThat(refused.rejected())
                    .extracting(o -> o.request().limit().name())
                    .containsExactly(tight.name());
        }

        for (int i = 0; i < 3; i++) {
            assertThat(call(instance(i), LimitRequest.of(roomy, id, 1)).allowed())
                    .as("call %d of the roomy limit", i + 1)
                    .isTrue();
        }
        assertThat(call(instance(3), LimitRequest.of(roomy, id, 1)).allowed()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aCostCountsAsThatManyCallsAndARefusedCostTakesNothing(Algorithm algorithm) {
        RateLimit limit = RateLimit.of(fresh("cost"), algorithm, 5, 3_600_000);
        String id = fresh("user");

        Decision three = call(instance(0), LimitRequest.of(limit, id, 3));
        assertThat(three.allowed()).isTrue();
        assertThat(three.remaining()).isEqualTo(2);
        assertThat(call(instance(1), LimitRequest.of(limit, id, 3)).allowed()).isFalse();
        Decision two = call(instance(0), LimitRequest.of(limit, id, 2));
        assertThat(two.allowed()).isTrue();
        assertThat(two.remaining()).isZero();
        assertThat(call(instance(1), LimitRequest.of(limit, id, 1)).allowed()).isFalse();
    }

    /**
     * A limit whose window is not a whole number of its intervals in microseconds (3 per 10 s: 3,333,333.3 µs each)
     * admits exactly its limit at once, each answer counting down to 0: the intervals add up to exactly one window.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aLimitThatDoesNotDivideItsWindowAdmitsExactlyItsLimit(Algorithm algorithm) {
        for (int limit : new int[] {3, 7, 9}) {
            RateLimit uneven = RateLimit.of(fresh("uneven"), algorithm, limit, 10_000);
            String id = fresh("user");

            for (int i = 1; i <= limit; i++) {
                Decision admitted = call(instance(i % 2), LimitRequest.of(uneven, id, 1));
                assertThat(admitted.allowed()).as("call %d of %d", i, limit).isTrue();
                assertThat(admitted.remaining()).as("call %d of %d", i, limit).isEqualTo(limit - i);
            }
            assertThat(call(instance(0), LimitRequest.of(uneven, id, 1)).allowed())
                    .isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aRefusalNamesTheLimitAndAdvisesAWaitWithinItsWindow(Algorithm algorithm) {
        RateLimit limit = RateLimit.of(fresh("advice"), algorithm, 2, 60_000);
        String id = fresh("user");
        call(instance(0), LimitRequest.of(limit, id, 1));
        call(instance(1), LimitRequest.of(limit, id, 1));

        Decision refused = call(instance(0), LimitRequest.of(limit, id, 1));

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.rejected()).singleElement().satisfies(outcome -> {
            assertThat(outcome.request().limit()).isEqualTo(limit);
            assertThat(outcome.remaining()).isZero();
        });
        assertThat(refused.retryAfter())
                .isPositive()
                .isLessThanOrEqualTo(Duration.ofMinutes(1).plus(MARGIN));
    }

    /** A call made once the advised wait has passed since the refusal's answer is admitted. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void retryAdviceIsNeverTooEarly(Algorithm algorithm) throws Exception {
        RateLimit limit = RateLimit.of(fresh("retry"), algorithm, 2, 600);
        String id = fresh("user");
        for (int round = 0; round < 2; round++) {
            Decision refused;
            int calls = 0;
            do {
                refused = call(instance(calls++), LimitRequest.of(limit, id, 1));
            } while (refused.allowed());
            long answeredAt = System.nanoTime();
            Duration advice = refused.retryAfter();
            assertThat(advice)
                    .isPositive()
                    .isLessThanOrEqualTo(Duration.ofMillis(600).plus(MARGIN));

            long retryAt = answeredAt + advice.toNanos();
            while (System.nanoTime() < retryAt) {
                Thread.sleep(Math.max(1, (retryAt - System.nanoTime()) / 1_000_000));
            }
            assertThat(call(instance(round), LimitRequest.of(limit, id, 1)).allowed())
                    .as("round %d: a call %s after the refusal's answer", round, advice)
                    .isTrue();
        }
    }

    @Test
    void aShadowLimitReportsWithoutRefusing() {
        RateLimit limit = RateLimit.of(fresh("shadow"), Algorithm.SLIDING_WINDOW, 1, 3_600_000);
        String id = fresh("user");
        call(instance(0), LimitRequest.of(limit, id, 1).asShadow(true));

        Decision overShadow = call(instance(1), LimitRequest.of(limit, id, 1).asShadow(true));

        assertThat(overShadow.allowed()).isTrue();
        assertThat(overShadow.rejected()).isEmpty();
        assertThat(overShadow.shadowRejected())
                .singleElement()
                .satisfies(outcome -> assertThat(outcome.request().limit()).isEqualTo(limit));
    }

    @Test
    void theSameLimitAndIdentifierTwiceInOneCallCountOnce() {
        RateLimit limit = RateLimit.of(fresh("twice"), Algorithm.SLIDING_WINDOW, 2, 3_600_000);
        String id = fresh("user");

        Decision decision = call(instance(0), LimitRequest.of(limit, id, 1), LimitRequest.of(limit, id, 1));

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.outcomes()).hasSize(1);
        assertThat(call(instance(1), LimitRequest.of(limit, id, 1)).allowed()).isTrue();
        assertThat(call(instance(0), LimitRequest.of(limit, id, 1)).allowed()).isFalse();
    }

    @Test
    void identifiersAndLimitsCountApart() {
        RateLimit limit = RateLimit.of(fresh("apart"), Algorithm.SLIDING_WINDOW, 1, 3_600_000);
        RateLimit other = RateLimit.of(fresh("apart"), Algorithm.SLIDING_WINDOW, 1, 3_600_000);
        String alice = fresh("alice");
        String bob = fresh("bob");

        assertThat(call(instance(0), LimitRequest.of(limit, alice, 1)).allowed())
                .isTrue();
        assertThat(call(instance(1), LimitRequest.of(limit, bob, 1)).allowed()).isTrue();
        assertThat(call(instance(0), LimitRequest.of(other, alice, 1)).allowed())
                .isTrue();
        assertThat(call(instance(1), LimitRequest.of(limit, alice, 1)).allowed())
                .isFalse();
    }

    /**
     * A reset forgets one identifier's count under one limit, on every instance (within seconds), and nothing else.
     * Optional in the SPI: a limiter that cannot reset skips this test.
     */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aResetForgetsTheCount(Algorithm algorithm) {
        RateLimit limit = RateLimit.of(fresh("reset"), algorithm, 1, 3_600_000);
        String id = fresh("user");
        String other = fresh("other");
        call(instance(0), LimitRequest.of(limit, id, 1));
        call(instance(0), LimitRequest.of(limit, other, 1));
        assertThat(call(instance(1), LimitRequest.of(limit, id, 1)).allowed()).isFalse();

        try {
            instance(0).reset(limit, LimitRequest.of(limit, id, 1).identifier());
        } catch (UnsupportedOperationException e) {
            assumeThat(false).as("this limiter cannot reset: " + e.getMessage()).isTrue();
        }
        // the other instance may repeat a refusal it keeps in memory until it hears of the reset; a refused call
        // takes nothing, so asking until it admits is safe
        Poll.until("the reset to reach the other instance", Duration.ofSeconds(5), () -> call(
                        instance(1), LimitRequest.of(limit, id, 1))
                .allowed());
        assertThat(call(instance(1), LimitRequest.of(limit, id, 1)).allowed())
                .as("the count after the reset")
                .isFalse();
        assertThat(call(instance(1), LimitRequest.of(limit, other, 1)).allowed())
                .as("another identifier's count")
                .isFalse();
    }
}
