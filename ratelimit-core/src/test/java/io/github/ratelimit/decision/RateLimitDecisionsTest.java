package io.github.ratelimit.decision;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientBlocks;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.decision.RateLimitDecisions.Admitted;
import io.github.ratelimit.decision.RateLimitDecisions.Call;
import io.github.ratelimit.decision.RateLimitDecisions.NotLimited;
import io.github.ratelimit.decision.RateLimitDecisions.Outcome;
import io.github.ratelimit.decision.RateLimitDecisions.Refused;
import io.github.ratelimit.decision.RateLimitDecisions.RefusedClosed;
import io.github.ratelimit.decision.RateLimitDecisions.UncheckedOpen;
import io.github.ratelimit.local.LocalRateLimiter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The one decision call without a framework, in the order the flow promises: exemptions before anything of the call
 * is read, then blocks, then the limiter, then the failure mode when the limiter cannot decide. The limiter here is the
 * one in memory, or one that cannot decide (a stand-in for Redis being away, which the flow only sees as an exception).
 */
class RateLimitDecisionsTest {

    static final RateLimit LIMIT = RateLimit.of("search", Algorithm.SLIDING_WINDOW, 2, 60_000);

    static final RateLimiter CANNOT_DECIDE = new RateLimiter() {
        @Override
        public Decision tryAcquire(List<LimitRequest> requests) {
            throw new RedisUnavailableException("Redis did not answer within 200 ms", Duration.ofSeconds(1), null);
        }

        @Override
        public CompletionStage<Decision> tryAcquireAsync(List<LimitRequest> requests) {
            return CompletableFuture.failedFuture(
                    new RedisUnavailableException("Redis did not answer within 200 ms", Duration.ofSeconds(1), null));
        }
    };

    static CallerContext caller(String address) {
        return new CallerContext() {
            @Override
            public String clientAddress() {
                return address;
            }
        };
    }

    static Call call(String user, FailureMode mode) {
        return Call.of("search", List.of(LimitRequest.of(LIMIT, user, 1)), Set.of(mode));
    }

    @Test
    void anExemptCallerIsNotAskedWhatItsCallIs() {
        RateLimitDecisions decisions = RateLimitDecisions.builder(() -> new LocalRateLimiter(100))
                .exemptions(Exemptions.of(List.of("10.0.0.0/8"), Set.of(), Map.of()))
                .build();
        AtomicInteger asked = new AtomicInteger();

        Outcome exempt = decisions.decide(caller("10.1.2.3"), c -> {
            asked.incrementAndGet();
            return call("ada", FailureMode.DEFAULT);
        });
        Outcome other = decisions.decide(caller("192.0.2.1"), c -> {
            asked.incrementAndGet();
            return call("ada", FailureMode.DEFAULT);
        });

        assertThat(exempt).isInstanceOf(NotLimited.class);
        assertThat(exempt.call()).isNull();
        assertThat(other).isInstanceOf(Admitted.class);
        assertThat(asked).hasValue(1);
    }

    @Test
    void theSameFlowBlockingAndAsyncCountsExactlyTheLimit() throws Exception {
        RateLimitDecisions decisions = RateLimitDecisions.of(new LocalRateLimiter(100));
        CallerContext somebody = caller("192.0.2.1");

        Outcome first = decisions.decide(somebody, c -> call("bob", FailureMode.DEFAULT));
        Outcome second = decisions
                .decideAsync(somebody, c -> call("bob", FailureMode.DEFAULT))
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
        Outcome third = decisions.decide(somebody, c -> call("bob", FailureMode.DEFAULT));

        assertThat(first).isInstanceOf(Admitted.class);
        assertThat(second).isInstanceOf(Admitted.class);
        assertThat(third).isInstanceOf(Refused.class);
        assertThat(third.refusal()).isInstanceOf(RateLimitExceededException.class);
        assertThat(decisions.decide(somebody, c -> null)).isInstanceOf(NotLimited.class);
    }

    @Test
    void aBlockedCallerIsRefusedForTheTimeLeftWithoutAskingTheLimiter() {
        AtomicInteger asked = new AtomicInteger();
        RateLimiter counting = new RateLimiter() {
            @Override
            public Decision tryAcquire(List<LimitRequest> requests) {
                asked.incrementAndGet();
                return new LocalRateLimiter(100).tryAcquire(requests);
            }
        };
        RateLimitDecisions decisions = RateLimitDecisions.builder(() -> counting)
                .blocks(() -> new OneBlock(ClientIdentifier.of("ip", "203.0.113.9"), Duration.ofSeconds(30)))
                .build();
        List<ClientIdentifier> toldBlocked = new java.util.concurrent.CopyOnWriteArrayList<>();
        decisions.events().add(new RateLimitListener() {
            @Override
            public void blocked(ClientIdentifier client) {
                toldBlocked.add(client);
            }
        });

        Outcome blocked = decisions.decide(caller("203.0.113.9"), c -> call("eve", FailureMode.DEFAULT));
        Outcome free = decisions.decide(caller("203.0.113.10"), c -> call("eve", FailureMode.DEFAULT));

        assertThat(blocked).isInstanceOfSatisfying(Refused.class, refused -> assertThat(
                        refused.decision().retryAfter())
                .isEqualTo(Duration.ofSeconds(30)));
        assertThat(free).isInstanceOf(Admitted.class);
        assertThat(asked).hasValue(1);
        assertThat(decisions.fallbacks().blockedCalls()).isEqualTo(1);
        assertThat(toldBlocked).containsExactly(ClientIdentifier.of("ip", "203.0.113.9"));
    }

    @Test
    void withoutTheLimiterTheStrictestFailureModeDecidesAndIsCounted() {
        RateLimitDecisions decisions = RateLimitDecisions.builder(() -> CANNOT_DECIDE)
                .failureMode(() -> FailureMode.OPEN)
                .build();
        List<String> toldFallbacks = new java.util.concurrent.CopyOnWriteArrayList<>();
        decisions.events().add(new RateLimitListener() {
            @Override
            public void fellBack(String what, FailureMode mode) {
                toldFallbacks.add(what + " " + mode);
            }
        });
        CallerContext somebody = caller("192.0.2.1");

        Outcome open = decisions.decide(somebody, c -> call("ada", FailureMode.DEFAULT));
        Outcome local = decisions.decide(
                somebody,
                c -> Call.of(
                        "search",
                        List.of(LimitRequest.of(LIMIT, "ada", 1)),
                        Set.of(FailureMode.OPEN, FailureMode.LOCAL)));
        Outcome closed = decisions.decide(
                somebody,
                c -> Call.of(
                        "search",
                        List.of(LimitRequest.of(LIMIT, "ada", 1)),
                        Set.of(FailureMode.LOCAL, FailureMode.CLOSED)));

        assertThat(open).isInstanceOf(UncheckedOpen.class);
        assertThat(open.refusal()).isNull();
        assertThat(local).isInstanceOf(Admitted.class);
        assertThat(closed).isInstanceOf(RefusedClosed.class);
        assertThat(closed.refusal()).isInstanceOf(RedisUnavailableException.class);
        assertThat(decisions.fallbacks().failedOpen()).isEqualTo(1);
        assertThat(decisions.fallbacks().decidedLocally()).isEqualTo(1);
        assertThat(decisions.fallbacks().failedClosed()).isEqualTo(1);
        assertThat(toldFallbacks).containsExactly("search OPEN", "search LOCAL", "search CLOSED");
    }

    /** A call counted on failure only: checked before it runs, taken when it failed, once however often told. */
    @Test
    void aFailedCallTakesWhatItOnlyCheckedOnceHoweverOftenItsEndIsTold() {
        RateLimitDecisions decisions = RateLimitDecisions.of(new LocalRateLimiter(100));
        RateLimit failures = RateLimit.of("logins", Algorithm.SLIDING_WINDOW, 2, 60_000);
        Call login = Call.of(
                "login", List.of(LimitRequest.of(failures, "ada", 1).checkingOnly()), Set.of(FailureMode.DEFAULT));

        DecidedCall first = decisions.begin(caller("192.0.2.1"), c -> login, RateLimitDecisions.After.DEFAULT);
        assertThat(first.outcome()).isInstanceOf(Admitted.class);
        assertThat(first.awaitsEnd()).isTrue();
        first.failed(new IllegalStateException("wrong password"));
        first.failed(null); // a failing status seen after the error: the same end
        first.completed("too late");

        DecidedCall second = decisions.begin(caller("192.0.2.1"), c -> login, RateLimitDecisions.After.DEFAULT);
        assertThat(second.outcome()).as("one failure counted of two").isInstanceOf(Admitted.class);
        second.completed("ok"); // a success takes nothing
        DecidedCall third = decisions.begin(caller("192.0.2.1"), c -> login, RateLimitDecisions.After.DEFAULT);
        assertThat(third.outcome()).isInstanceOf(Admitted.class);
        third.failed(null);

        DecidedCall refused = decisions.begin(caller("192.0.2.1"), c -> login, RateLimitDecisions.After.DEFAULT);
        assertThat(refused.outcome()).isInstanceOf(Refused.class);
        assertThat(refused.refusal()).as("built once").isSameAs(refused.refusal());
        assertThat(refused.awaitsEnd()).isFalse();
    }

    /** What the integration says follows a call: its failing results, and what it is charged. */
    @Test
    void aCompletedCallIsChargedWhatItsIntegrationSaysAndAFailingResultCountsAsAFailure() {
        LocalRateLimiter local = new LocalRateLimiter(100);
        List<String> charges = new java.util.concurrent.CopyOnWriteArrayList<>();
        RateLimiter limiter = new RateLimiter() {
            @Override
            public Decision tryAcquire(List<LimitRequest> requests) {
                return local.tryAcquire(requests);
            }

            @Override
            public CompletionStage<Decision> tryAcquireAsync(List<LimitRequest> requests) {
                return local.tryAcquireAsync(requests);
            }

            @Override
            public CompletionStage<Void> chargeAsync(List<LimitRequest> requests, long units) {
                charges.add(requests.get(0).limit().name() + " " + units);
                return CompletableFuture.completedFuture(null);
            }
        };
        RateLimitDecisions decisions = RateLimitDecisions.of(limiter);
        RateLimit tokens = RateLimit.of("tokens", Algorithm.FIXED_WINDOW, 10, 60_000);
        RateLimit errors = RateLimit.of("errors", Algorithm.FIXED_WINDOW, 1, 60_000);
        Call complete = Call.of(
                "complete",
                List.of(
                        LimitRequest.of(tokens, "ada", 1).checkingOnly(),
                        LimitRequest.of(errors, "ada", 1).checkingOnly()),
                Set.of());
        RateLimitDecisions.After after = new RateLimitDecisions.After() {
            @Override
            public boolean failure(Object result) {
                return "error".equals(result);
            }

            @Override
            public Call failures(Call admitted) {
                return Call.of(
                        admitted.what(), List.of(admitted.requests().get(1).taking()), Set.of());
            }

            @Override
            public boolean charges() {
                return true;
            }

            @Override
            public List<RateLimitDecisions.Charge> charged(List<LimitRequest> requests, Object result, boolean failed) {
                return failed ? List.of() : List.of(new RateLimitDecisions.Charge(List.of(requests.get(0)), 7));
            }
        };

        decisions.begin(CallerContext.NONE, c -> complete, after).completed("7 tokens");
        decisions.begin(CallerContext.NONE, c -> complete, after).completed("error");

        assertThat(charges).containsExactly("tokens 7", "tokens 7");
        assertThat(decisions.fallbacks().chargedUnits()).isEqualTo(14);
        DecidedCall next = decisions.begin(CallerContext.NONE, c -> complete, after);
        assertThat(next.outcome())
                .as("the failing result took the one error allowed")
                .isInstanceOf(Refused.class);
        assertThat(next.refusal()).isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    void aChargeTheLimiterCannotTakeIsCountedAndLostWithoutFailingTheCaller() {
        RateLimitDecisions decisions = RateLimitDecisions.of(CANNOT_DECIDE);

        decisions.charge(
                "complete", List.of(new RateLimitDecisions.Charge(List.of(LimitRequest.of(LIMIT, "ada", 1)), 5)));

        assertThat(decisions.fallbacks().chargesLost()).isEqualTo(1);
        assertThat(decisions.fallbacks().chargedUnits()).isZero();
    }

    /** One block, in memory. */
    record OneBlock(ClientIdentifier client, Duration left) implements ClientBlocks {
        @Override
        public Duration blockedFor(ClientIdentifier candidate) {
            return client.equals(candidate) ? left : null;
        }

        @Override
        public boolean isEmpty() {
            return false;
        }

        @Override
        public Instant now() {
            return Instant.EPOCH;
        }

        @Override
        public void block(ClientIdentifier client, Duration duration) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean lift(ClientIdentifier client) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Map<String, Duration> list() {
            return Map.of(client.kind() + " " + client.value(), left);
        }
    }
}
