package io.github.ratelimit.redis.internal;

import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RateLimitListener.GiveBack;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.core.internal.LogThrottle;
import io.github.ratelimit.redis.RedisGuard;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.redisson.RedissonShutdownException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives back what a write took when its caller was told it failed (its answer was lost, or no replica acknowledged
 * it): sent at once and, while Redis does not answer, again after 50 ms, 100 ms, ... up to 3.2 s apart, for about ten
 * seconds in all (each give-back names its attempt, so sending it twice gives back once). The outcome is told to the
 * events ({@code gaveBack}); one that still failed is logged at WARN (at most once a minute, with the count).
 */
public final class GiveBacks {

    private static final Logger log = LoggerFactory.getLogger(GiveBacks.class);

    /** The pauses before each attempt after the first: about ten seconds in all. */
    public static final List<Duration> PAUSES = List.of(
            Duration.ofMillis(50),
            Duration.ofMillis(100),
            Duration.ofMillis(200),
            Duration.ofMillis(400),
            Duration.ofMillis(800),
            Duration.ofMillis(1600),
            Duration.ofMillis(3200),
            Duration.ofMillis(3200));

    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "ratelimit-givebacks");
        thread.setDaemon(true);
        return thread;
    });

    private static final LogThrottle FAILED_LOG = new LogThrottle(Duration.ofMinutes(1));
    private static final AtomicLong FAILED = new AtomicLong();

    private GiveBacks() {}

    /**
     * Sends a give-back until Redis answers it or the attempts run out; never throws.
     *
     * @param what what is given back, for the events and the log: {@code token}, {@code lock}, {@code slot},
     *     {@code rate-limit} (what a call one Cluster slot refused took in another), {@code charge} (sent again)
     * @param send sends the give-back once (through the guard)
     * @param gaveBack reads the answer: whether the attempt had taken something that is now given back
     * @return completes with the outcome once known (never exceptionally)
     */
    public static CompletableFuture<GiveBack> send(
            RateLimitEvents events,
            String what,
            Supplier<CompletionStage<List<Object>>> send,
            Function<List<Object>, Boolean> gaveBack) {
        CompletableFuture<GiveBack> outcome = new CompletableFuture<>();
        attempt(what, send, gaveBack, 0, outcome);
        return outcome.whenComplete((given, never) -> events.gaveBack(what, given));
    }

    /** Whether a call failed because its Redis client was shut down. */
    public static boolean shutDown(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedissonShutdownException) {
                return true;
            }
        }
        return false;
    }

    private static void attempt(
            String what,
            Supplier<CompletionStage<List<Object>>> send,
            Function<List<Object>, Boolean> gaveBack,
            int attempt,
            CompletableFuture<GiveBack> outcome) {
        CompletionStage<List<Object>> sent;
        try {
            sent = send.get();
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((reply, error) -> {
            if (error == null) {
                outcome.complete(gaveBack.apply(reply) ? GiveBack.GIVEN_BACK : GiveBack.NOTHING_TAKEN);
            } else if (shutDown(error)) {
                // the client was shut down (the application, or a test's context, stops): nothing is sent any more,
                // and nothing outlives it to log into whatever runs next
                log.debug("A {} was not given back: its Redis client was shut down", what);
                outcome.complete(GiveBack.FAILED);
            } else if (RedisGuard.neverSent(error)) {
                // no connection was ever made: the call it gives back never reached Redis and took nothing
                outcome.complete(GiveBack.NOTHING_TAKEN);
            } else if (attempt < PAUSES.size()) {
                TIMER.schedule(
                        () -> attempt(what, send, gaveBack, attempt + 1, outcome),
                        PAUSES.get(attempt).toMillis(),
                        TimeUnit.MILLISECONDS);
            } else {
                long failed = FAILED.incrementAndGet();
                if (FAILED_LOG.due(failed == 1)) {
                    log.warn(
                            "A {} whose answer was lost could not be given back: Redis did not answer {} attempts in"
                                    + " about ten seconds ({} such give-backs failed so far; logged at most once a"
                                    + " minute). It stays taken until it expires.",
                            what,
                            PAUSES.size() + 1,
                            failed,
                            Futures.cause(error));
                }
                outcome.complete(GiveBack.FAILED);
            }
        });
    }
}
