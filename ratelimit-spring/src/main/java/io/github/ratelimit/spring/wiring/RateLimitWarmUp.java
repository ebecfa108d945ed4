package io.github.ratelimit.spring.wiring;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.internal.Unannounced;
import io.github.ratelimit.decision.RateLimitDecisions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * Makes the decision path ready before the application serves its first request, when Redis answers at start: the
 * scripts loaded, and a few hundred decisions of every algorithm taken, blocking and not, through the same flow the
 * interceptors and filters use, so that classes are loaded and the hot code compiled before callers arrive. Without it
 * the first calls after a start could run out of their budget inside the JVM (class loading, JIT, a cold event loop),
 * and be answered without Redis: a first burst admitted beyond its limit.
 *
 * <p>Runs as the context starts, in the phase {@link #PHASE}: after the store's first connection (the Redis store
 * waits for it in a lower phase), before the web server takes requests (the default phase less 2048) and before the
 * application reports ready; at most {@link #MAX} long, and not at all while Redis has not answered yet (then nothing
 * delays the start).
 * The warm-up's requests check without taking (nothing is written to Redis), and its decisions (limit
 * {@value #NAME}) are told to no listener: neither counted in the metrics nor observed.
 */
public final class RateLimitWarmUp implements SmartLifecycle {

    /** After the Redis store's connection and background work, before the web server (the default phase less 2048). */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 3072;

    private static final Logger log = LoggerFactory.getLogger(RateLimitWarmUp.class);

    /** Rounds of decisions: enough for the JIT's first tier to compile the path (about 200 calls a method). */
    static final int ROUNDS = 300;

    /** Calls sent at once, every tenth round. */
    static final int TOGETHER = 40;

    /** The warm-up's limit name. */
    static final String NAME = "ratelimit-warm-up";

    /** The longest the warm-up may take. */
    static final Duration MAX = Duration.ofSeconds(3);

    /** A warm-up call that Redis cannot decide is let through: it decides nothing anyway. */
    private static final Set<FailureMode> OPEN = Set.of(FailureMode.OPEN);

    private final ObjectProvider<RateLimitDecisions> decisions;
    private final BooleanSupplier redisAnswers;
    private final Runnable loadScripts;
    private volatile boolean running;

    public RateLimitWarmUp(
            ObjectProvider<RateLimitDecisions> decisions, BooleanSupplier redisAnswers, Runnable loadScripts) {
        this.decisions = decisions;
        this.redisAnswers = redisAnswers;
        this.loadScripts = loadScripts;
    }

    /** Warms up with its decisions told to no listener: they are the library's own, not the application's. */
    @Override
    public void start() {
        running = true;
        Unannounced.run(() -> {
            warmUp();
            return null;
        });
    }

    /** Nothing runs on after the warm-up, so there is nothing to stop. */
    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    private void warmUp() {
        RateLimitDecisions flow = decisions.getIfAvailable();
        if (flow == null || !redisAnswers.getAsBoolean()) {
            log.debug("Rate limiter not warmed up: Redis has not answered yet");
            return;
        }
        long started = System.nanoTime();
        long deadline = started + MAX.toNanos();
        int decided = 0;
        try {
            loadScripts.run();
            List<RateLimitDecisions.Call> calls = calls();
            for (int round = 0; round < ROUNDS && System.nanoTime() - deadline < 0; round++) {
                for (RateLimitDecisions.Call call : calls) {
                    flow.decide(CallerContext.NONE, caller -> call);
                    flow.decideAsync(CallerContext.NONE, caller -> call)
                            .toCompletableFuture()
                            .get(MAX.toMillis(), TimeUnit.MILLISECONDS);
                    decided += 2;
                }
                if (round % 10 == 0) {
                    decided += together(flow, calls);
                }
            }
        } catch (Exception e) {
            log.debug("Rate limiter warm-up stopped after {} decisions", decided, e);
        }
        log.debug(
                "Rate limiter warmed up: {} decisions in {} ms",
                decided,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /**
     * {@value #TOGETHER} calls sent at once without waiting, as a burst of requests sends them: the path where calls that
     * meet on the way to Redis share a round trip, which calls one after another never take.
     */
    private static int together(RateLimitDecisions flow, List<RateLimitDecisions.Call> calls) throws Exception {
        List<CompletableFuture<?>> pending = new ArrayList<>(TOGETHER);
        for (int i = 0; i < TOGETHER; i++) {
            RateLimitDecisions.Call call = calls.get(i % calls.size());
            pending.add(flow.decideAsync(CallerContext.NONE, caller -> call).toCompletableFuture());
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(MAX.toMillis(), TimeUnit.MILLISECONDS);
        return TOGETHER;
    }

    /**
     * One call per algorithm, and one of three windows for two identifiers: each decided and answered in full, but
     * writing nothing to Redis: checking only, and the three windows read at cost 0 (a call that checks only is not
     * counted in one key of several windows, so this one takes the seed's own script, loaded by it before callers
     * come).
     */
    private static List<RateLimitDecisions.Call> calls() {
        ClientIdentifier first = ClientIdentifier.of("warm-up-" + UUID.randomUUID());
        ClientIdentifier second = ClientIdentifier.of("warm-up-" + UUID.randomUUID());
        List<List<LimitRequest>> calls = new ArrayList<>();
        for (Algorithm algorithm : List.of(Algorithm.SLIDING_WINDOW, Algorithm.FIXED_WINDOW, Algorithm.TOKEN_BUCKET)) {
            calls.add(List.of(LimitRequest.of(RateLimit.of(NAME, algorithm, 1_000_000, 1_000), first, 1)
                    .checkingOnly()));
        }
        List<LimitRequest> windows = new ArrayList<>();
        for (long windowMs : new long[] {1_000, 2_000, 3_000}) {
            RateLimit limit = RateLimit.of(NAME, Algorithm.SLIDING_WINDOW, 1_000_000, windowMs);
            windows.add(LimitRequest.of(limit, first, 0));
            windows.add(LimitRequest.of(limit, second, 0));
        }
        calls.add(windows);
        return calls.stream()
                .map(requests -> RateLimitDecisions.Call.of(NAME, requests, OPEN))
                .toList();
    }
}
