package io.github.ratelimit.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The waiting of {@link RateLimiter#tryAcquire(List, Duration)}: ask, and while refused with advice that falls before
 * the deadline, wait until that advice and ask again. The deadline is on the JVM's monotonic clock; the advice is the
 * limiter's (Redis's clock), relative to its decision.
 */
final class Waiting {

    /** Added to every advice: a call that came back a moment early would be refused and told a later slot. */
    private static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private Waiting() {}

    static Decision blocking(RateLimiter limiter, List<LimitRequest> requests, Duration maxWait) {
        long deadline = deadline(maxWait);
        List<LimitRequest> staggered = staggered(requests, maxWait);
        while (true) {
            Decision decision = limiter.tryAcquire(staggered);
            long pause = pause(decision, deadline);
            if (pause < 0) {
                return decision;
            }
            try {
                TimeUnit.NANOSECONDS.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return decision;
            }
        }
    }

    static CompletionStage<Decision> async(RateLimiter limiter, List<LimitRequest> requests, Duration maxWait) {
        long deadline = deadline(maxWait);
        List<LimitRequest> staggered = staggered(requests, maxWait);
        return attempt(limiter, staggered, deadline);
    }

    private static CompletionStage<Decision> attempt(RateLimiter limiter, List<LimitRequest> requests, long deadline) {
        return limiter.tryAcquireAsync(requests).thenCompose(decision -> {
            long pause = pause(decision, deadline);
            if (pause < 0) {
                return CompletableFuture.completedFuture(decision);
            }
            return CompletableFuture.runAsync(
                            () -> {}, CompletableFuture.delayedExecutor(pause, TimeUnit.NANOSECONDS, Runnable::run))
                    .thenCompose(waited -> attempt(limiter, requests, deadline));
        });
    }

    private static long deadline(Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, but was " + maxWait);
        }
        return System.nanoTime() + maxWait.toNanos();
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
