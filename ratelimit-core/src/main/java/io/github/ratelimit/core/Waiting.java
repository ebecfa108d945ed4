package io.github.ratelimit.core;

import io.github.ratelimit.annotation.Algorithm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The waiting of {@link RateLimiter#tryAcquire(List, Duration)}: ask with staggered advice (callers refused together
 * are told slots one apart, a place in a queue), and while refused with advice that falls before the deadline, wait
 * until that advice and ask again. A caller that comes back at its slot and finds it taken (a slot is measured from
 * the advice, an admission lands a moment after it) asks for its earliest retry, not for a place at the end of the
 * queue: it is refused after waiting only when no slot before its deadline is left. Slots slip as admissions land
 * late, so a first advice that falls within a small margin of the deadline is refused at once. The deadline is on the JVM's
 * monotonic clock; the advice is the limiter's (Redis's clock), relative to its decision. A limiter that tells events
 * ({@link RateLimitEvents.Source}) is told how each wait ended ({@link RateLimitListener#waited}).
 */
final class Waiting {

    /** Added to every advice: a call that came back a moment early would be refused and told a later slot. */
    private static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private Waiting() {}

    static Decision blocking(RateLimiter limiter, List<LimitRequest> requests, Duration maxWait) {
        long started = System.nanoTime();
        long deadline = deadline(started, maxWait);
        List<LimitRequest> asked = staggered(requests, maxWait);
        List<LimitRequest> again = again(requests, asked);
        boolean waited = false;
        while (true) {
            Decision decision = limiter.tryAcquire(asked);
            long pause = pause(decision, waited ? deadline : deadline - slip(maxWait));
            if (pause < 0) {
                return told(limiter, requests, decision, waited, started);
            }
            try {
                TimeUnit.NANOSECONDS.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return told(limiter, requests, decision, true, started);
            }
            waited = true;
            asked = again; // back at its slot: if it was taken, the earliest retry, not the end of the queue
        }
    }

    static CompletionStage<Decision> async(RateLimiter limiter, List<LimitRequest> requests, Duration maxWait) {
        long started = System.nanoTime();
        long deadline = deadline(started, maxWait);
        List<LimitRequest> asked = staggered(requests, maxWait);
        return attempt(limiter, again(requests, asked), asked, deadline, deadline - slip(maxWait), false)
                .thenApply(ended -> told(limiter, requests, ended.decision(), ended.waited(), started));
    }

    private record Ended(Decision decision, boolean waited) {}

    private static CompletionStage<Ended> attempt(
            RateLimiter limiter,
            List<LimitRequest> again,
            List<LimitRequest> asked,
            long deadline,
            long firstDeadline,
            boolean waited) {
        return limiter.tryAcquireAsync(asked).thenCompose(decision -> {
            long pause = pause(decision, waited ? deadline : firstDeadline);
            if (pause < 0) {
                return CompletableFuture.completedFuture(new Ended(decision, waited));
            }
            return CompletableFuture.runAsync(
                            () -> {}, CompletableFuture.delayedExecutor(pause, TimeUnit.NANOSECONDS, Runnable::run))
                    .thenCompose(slept -> attempt(limiter, again, again, deadline, firstDeadline, true));
        });
    }

    /**
     * What a caller back at its slot asks: its requests without staggering (told its earliest retry), unless a store
     * may count some of them together only when they are not staggered (sliding windows of one name, identifier and
     * cost: the Redis store's key of several windows), which would count the second ask in another key than the first;
     * those keep their staggered advice.
     */
    private static List<LimitRequest> again(List<LimitRequest> requests, List<LimitRequest> staggered) {
        for (int i = 0; i < requests.size(); i++) {
            LimitRequest one = requests.get(i);
            for (int j = i + 1; j < requests.size(); j++) {
                LimitRequest other = requests.get(j);
                if (one.limit().algorithm() == Algorithm.SLIDING_WINDOW
                        && other.limit().algorithm() == Algorithm.SLIDING_WINDOW
                        && one.limit().name().equals(other.limit().name())
                        && one.identifier().equals(other.identifier())
                        && one.cost() == other.cost()) {
                    return staggered;
                }
            }
        }
        return requests;
    }

    /**
     * How much of a wait a slot may slip by: a limit counts admissions when they happen, each a moment after its slot,
     * so slots a few windows ahead come that much later than advised. A first advice within this much of the deadline
     * is refused at once rather than waited for and then missed: 1% of the wait, at least 20 ms, at most half of it.
     */
    private static long slip(Duration maxWait) {
        long wait = maxWait.toNanos();
        return Math.min(wait / 2, Math.max(TimeUnit.MILLISECONDS.toNanos(20), wait / 100));
    }

    /** Tells the limiter's listeners how the wait ended, if it has any. */
    private static Decision told(
            RateLimiter limiter, List<LimitRequest> requests, Decision decision, boolean waited, long started) {
        if (limiter instanceof RateLimitEvents.Source source) {
            RateLimitListener.Wait outcome = decision.allowed()
                    ? RateLimitListener.Wait.ADMITTED
                    : waited ? RateLimitListener.Wait.REFUSED_AFTER_WAITING : RateLimitListener.Wait.REFUSED_AT_ONCE;
            source.events().waited(requests, outcome, Duration.ofNanos(System.nanoTime() - started));
        }
        return decision;
    }

    private static long deadline(long started, Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, but was " + maxWait);
        }
        return started + maxWait.toNanos();
    }

    private static List<LimitRequest> staggered(List<LimitRequest> requests, Duration maxWait) {
        if (maxWait.isZero()) {
            return requests;
        }
        List<LimitRequest> staggered = new ArrayList<>(requests.size());
        for (LimitRequest request : requests) {
            staggered.add(request.asStaggered(true));
        }
        return staggered;
    }

    /** How long to wait before asking again, or -1 when the decision is final (admitted, or advised too late). */
    private static long pause(Decision decision, long deadline) {
        if (decision.allowed()) {
            return -1;
        }
        long pause = decision.retryAfter().toNanos() + MARGIN_NANOS;
        return System.nanoTime() + pause - deadline > 0 ? -1 : pause;
    }
}
