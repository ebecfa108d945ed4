package io.github.ratelimit.test.kit;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.Usage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/**
 * The promises of waiting for room ({@link RateLimiter#tryAcquire(List, Duration)}) on a sliding window, for any store:
 * extend it as {@link RateLimiterContract} is extended. A caller told to wait holds its slot: callers refused together
 * are all admitted when the room their wait allows is enough, however late each of them is scheduled, and the limit
 * holds on the store's clock ({@link Decision#decidedAt}); a caller that gives up before its slot gives it back.
 */
public abstract class WaitingContract extends TwoInstances<RateLimiter> {

    /**
     * 12 callers at once, on both instances, on 3 per second, each waiting up to 5 s: the slots of 3 per second (one
     * every third of a second after the first window) reach 3.7 s, so every caller is admitted, and no second of the
     * store's clock holds more than 3 admissions.
     */
    @Test
    void callersToldToWaitAreAllAdmittedInTheirSlotsWithinTheLimit() throws Exception {
        RateLimit limit = RateLimit.of(fresh("waiting"), Algorithm.SLIDING_WINDOW, 3, 1_000);
        List<LimitRequest> call = List.of(LimitRequest.of(limit, fresh("client"), 1));
        ConcurrentLinkedQueue<Decision> decisions = new ConcurrentLinkedQueue<>();

        Threads.run(12, 1, (thread, i) -> decisions.add(instance(thread).tryAcquire(call, Duration.ofSeconds(5))));

        assertThat(decisions).hasSize(12).allMatch(Decision::allowed);
        List<Instant> admitted = new ArrayList<>();
        decisions.forEach(decision -> admitted.add(decision.decidedAt()));
        admitted.sort(null);
        for (int i = 3; i < admitted.size(); i++) {
            assertThat(Duration.between(admitted.get(i - 3), admitted.get(i)))
                    .as("admissions %d and %d of %s", i - 3, i, admitted)
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        }
    }

    /**
     * Callers that wait and callers that do not, together on both instances for three seconds, on 4 per second: a slot
     * held counts from the moment it is given, so no second of the store's clock holds more than 4 admissions, whoever
     * made them.
     */
    @Test
    void waitingAndOtherCallersTogetherStayWithinTheLimit() throws Exception {
        RateLimit limit = RateLimit.of(fresh("mixed"), Algorithm.SLIDING_WINDOW, 4, 1_000);
        List<LimitRequest> call = List.of(LimitRequest.of(limit, fresh("client"), 1));
        ConcurrentLinkedQueue<Instant> admitted = new ConcurrentLinkedQueue<>();
        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();

        Threads.run(12, 1, (thread, i) -> {
            while (System.nanoTime() - until < 0) {
                Decision decision = thread % 2 == 0
                        ? instance(thread).tryAcquire(call, Duration.ofSeconds(2))
                        : instance(thread).tryAcquire(call);
                if (decision.allowed()) {
                    admitted.add(decision.decidedAt());
                } else {
                    Thread.sleep(20); // the load's shape, not a wait for anything
                }
            }
        });

        List<Instant> times = new ArrayList<>(admitted);
        times.sort(null);
        assertThat(times).hasSizeGreaterThanOrEqualTo(8);
        for (int i = 4; i < times.size(); i++) {
            assertThat(Duration.between(times.get(i - 4), times.get(i)))
                    .as("admissions %d and %d of %s", i - 4, i, times)
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        }
    }

    /**
     * One call a minute: a second caller waiting up to two minutes holds the slot a minute on, so the limit is full
     * until a minute after that slot; then it gives up (its future cancelled), and the slot is free again: the limit is
     * full only until the first call's minute ends. Read as usage, which no refusal kept in memory answers.
     */
    @Test
    void aCallerThatGivesUpGivesItsSlotBack() {
        RateLimit limit = RateLimit.of(fresh("given-up"), Algorithm.SLIDING_WINDOW, 1, 60_000);
        List<LimitRequest> call = List.of(LimitRequest.of(limit, fresh("client"), 1));
        assertThat(instance(0).tryAcquire(call).allowed()).isTrue();

        CompletableFuture<Decision> waiting =
                instance(1).tryAcquireAsync(call, Duration.ofMinutes(2)).toCompletableFuture();
        Poll.until(
                "the second caller holding the next minute",
                Duration.ofSeconds(30),
                () -> fullFor(instance(0), call).compareTo(Duration.ofSeconds(61)) > 0);
        assertThat(waiting.cancel(true)).isTrue();

        Poll.until(
                "the slot given back",
                Duration.ofSeconds(30),
                () -> fullFor(instance(0), call).compareTo(Duration.ofSeconds(60)) <= 0);
        assertThat(instance(0).tryAcquire(call).allowed())
                .as("the first call's minute still counts")
                .isFalse();
    }

    /** How long the limit stays full, as usage reads it. */
    private static Duration fullFor(RateLimiter limiter, List<LimitRequest> call) {
        Usage usage = limiter.usage(call);
        return Duration.between(usage.readAt(), usage.windows().get(0).resetsAt());
    }
}
