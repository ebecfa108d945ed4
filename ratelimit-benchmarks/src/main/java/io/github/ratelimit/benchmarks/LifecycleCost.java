package io.github.ratelimit.benchmarks;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.decision.DecidedCall;
import io.github.ratelimit.decision.RateLimitDecisions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What one call's lifecycle object adds to a decision: the decision flow over a limiter that answers at once, asked
 * with {@code decide} (the decision alone, what an integration called before it drove a {@code DecidedCall}) and with
 * {@code begin} followed by the call's end ({@code completed}), in alternating rounds of sequential calls; prints each
 * round's nanoseconds per call and the medians. Also a limit that counts failures only, ended as failed (the failure is
 * then taken: a second decision). No Redis. Run with {@code --lifecycle} (and {@code --rounds=N}, {@code --calls=N}).
 */
final class LifecycleCost {

    private LifecycleCost() {}

    static void run(int rounds, int calls) {
        RateLimit limit = new RateLimit("hello", Algorithm.SLIDING_WINDOW, 5, Duration.ofSeconds(1));
        LimitRequest request = LimitRequest.of(limit, ClientIdentifier.of("ip", "127.0.0.1"), 1);
        Decision admitted = new Decision(
                true,
                List.of(new Decision.LimitOutcome(request, true, 3, Duration.ofMillis(700), Duration.ZERO)),
                Instant.now());
        RateLimitDecisions decisions = RateLimitDecisions.of(new MeteringCost.Answering(admitted));
        RateLimitDecisions.Call plain = RateLimitDecisions.Call.of("hello", List.of(request), Set.of());
        RateLimitDecisions.Call failures =
                RateLimitDecisions.Call.of("login", List.of(request.checkingOnly()), Set.of());
        List<Double> decided = new ArrayList<>();
        List<Double> lifecycle = new ArrayList<>();
        List<Double> failed = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            decided.add(nanosPerCall(calls, () -> decisions.decide(CallerContext.NONE, c -> plain) != null));
            lifecycle.add(nanosPerCall(calls, () -> {
                DecidedCall call = decisions.begin(CallerContext.NONE, c -> plain, RateLimitDecisions.After.DEFAULT);
                call.completed("answer");
                return call.refusal() == null;
            }));
            failed.add(nanosPerCall(calls, () -> {
                DecidedCall call = decisions.begin(CallerContext.NONE, c -> failures, RateLimitDecisions.After.DEFAULT);
                call.failed(null);
                return call.refusal() == null;
            }));
        }
        double decideMedian = MeteringCost.median(decided);
        double lifecycleMedian = MeteringCost.median(lifecycle);
        System.out.printf(
                "decide: %s ns; begin + completed: %s ns per call; medians %.0f and %.0f, the lifecycle adds %.0f ns%n",
                MeteringCost.whole(decided),
                MeteringCost.whole(lifecycle),
                decideMedian,
                lifecycleMedian,
                lifecycleMedian - decideMedian);
        System.out.printf(
                "counting failures, begin + failed (two decisions): %s ns per call; median %.0f%n",
                MeteringCost.whole(failed), MeteringCost.median(failed));
    }

    private static double nanosPerCall(int calls, java.util.function.BooleanSupplier call) {
        long started = System.nanoTime();
        boolean sink = false;
        for (int i = 0; i < calls; i++) {
            sink ^= call.getAsBoolean();
        }
        long elapsed = System.nanoTime() - started;
        if (sink && calls < 0) {
            System.out.println(); // keeps the calls from being optimised away
        }
        return elapsed / (double) calls;
    }
}
