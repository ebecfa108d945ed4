package io.github.ratelimit.core;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.SlotHolder.Held;
import io.github.ratelimit.core.internal.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The waiting of {@link RateLimiter#tryAcquire(List, Duration)}: ask with staggered advice (callers refused together
 * are told slots one apart, a place in a queue). A limiter that can hold slots ({@link SlotHolder}) counts a caller
 * refused now at its slot at once, when the slot falls before the caller's deadline: the caller waits until then and
 * goes on without asking again, unless an operator reset or credited one of its limits meanwhile; one that gives up
 * (interrupted, or its future cancelled) gives the slot back. With any other limiter, or a call whose slot cannot be
 * held, a caller refused with advice that falls before the deadline waits until that advice and asks again; a caller
 * that comes back at its slot and finds it taken (a slot is measured from the advice, an admission lands a moment after
 * it) asks for its earliest retry, not for a place at the end of the queue: it is refused after waiting only when no
 * slot before its deadline is left. Slots slip as admissions land late, so a first advice that falls within a small
 * margin of the deadline is refused at once. The deadline is on the JVM's monotonic clock; the advice is the limiter's
 * (Redis's clock), relative to its decision. A limiter that tells events ({@link RateLimitEvents.Source}) is told how
 * each wait ended ({@link RateLimitListener#waited}).
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
            long until = waited ? deadline : deadline - slip(maxWait);
            Held held = ask(limiter, asked, until);
            Decision decision = held.decision();
            long pause = decision.allowed() ? decision.startsIn().toNanos() : pause(decision, until);
            if (decision.allowed() && pause > 0 && System.nanoTime() + pause - deadline > 0) {
                held.giveUp(); // the answer came too late for its slot: the caller would go on past its deadline
                return told(limiter, requests, gaveUp(decision), waited, started);
            }
            if (pause < 0 || (decision.allowed() && pause == 0)) {
                return told(limiter, requests, decision, waited, started);
            }
            try {
                TimeUnit.NANOSECONDS.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                held.giveUp();
                return told(limiter, requests, decision.allowed() ? gaveUp(decision) : decision, true, started);
            }
            waited = true;
            if (decision.allowed() && held.stands()) {
                return told(limiter, requests, arrived(decision), true, started); // its slot has come
            }
            asked = again; // back at its slot: if it was taken, the earliest retry, not the end of the queue
        }
    }

    static CompletionStage<Decision> async(RateLimiter limiter, List<LimitRequest> requests, Duration maxWait) {
        long started = System.nanoTime();
        long deadline = deadline(started, maxWait);
        List<LimitRequest> asked = staggered(requests, maxWait);
        Wait wait = new Wait(limiter, requests, again(requests, asked), deadline, deadline - slip(maxWait), started);
        wait.attempt(asked, false);
        return wait.result;
    }

    /**
     * One caller's wait without a thread: each ask, then a timer until its advice or its slot. Cancelling
     * {@link #result} before a slot held has come gives the slot back.
     */
    private static final class Wait {
        private final RateLimiter limiter;
        private final List<LimitRequest> requests;
        private final List<LimitRequest> again;
        private final long deadline;
        private final long firstDeadline;
        private final long started;
        final CompletableFuture<Decision> result = new CompletableFuture<>();

        Wait(
                RateLimiter limiter,
                List<LimitRequest> requests,
                List<LimitRequest> again,
                long deadline,
                long firstDeadline,
                long started) {
            this.limiter = limiter;
            this.requests = requests;
            this.again = again;
            this.deadline = deadline;
            this.firstDeadline = firstDeadline;
            this.started = started;
        }

        void attempt(List<LimitRequest> asked, boolean waited) {
            long until = waited ? deadline : firstDeadline;
            askAsync(limiter, asked, until).whenComplete((held, error) -> {
                if (error != null) {
                    result.completeExceptionally(Futures.cause(error));
                    return;
                }
                Decision decision = held.decision();
                long pause = decision.allowed() ? decision.startsIn().toNanos() : pause(decision, until);
                if (decision.allowed() && pause > 0 && System.nanoTime() + pause - deadline > 0) {
                    held.giveUp(); // the answer came too late for its slot: the caller would go on past its deadline
                    result.complete(told(limiter, requests, gaveUp(decision), waited, started));
                    return;
                }
                if (pause < 0 || (decision.allowed() && pause == 0)) {
                    result.complete(told(limiter, requests, decision, waited, started));
                    return;
                }
                if (decision.allowed()) {
                    result.whenComplete((ended, failed) -> {
                        if (result.isCancelled()) {
                            held.giveUp(); // gave up before its slot came
                        }
                    });
                }
                CompletableFuture.delayedExecutor(pause, TimeUnit.NANOSECONDS, Runnable::run)
                        .execute(() -> {
                            if (result.isDone()) {
                                return;
                            }
                            if (decision.allowed() && held.stands()) {
                                result.complete(told(limiter, requests, arrived(decision), true, started));
                            } else {
                                attempt(again, true);
                            }
                        });
            });
        }
    }

    /** One ask: through {@link SlotHolder} when the limiter holds slots and some time is left before {@code until}. */
    private static Held ask(RateLimiter limiter, List<LimitRequest> asked, long until) {
        long within = until - System.nanoTime();
        if (limiter instanceof SlotHolder holder && within >= TimeUnit.MILLISECONDS.toNanos(1)) {
            return holder.hold(asked, Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(within)));
        }
        return Held.none(limiter.tryAcquire(asked));
    }

    private static CompletionStage<Held> askAsync(RateLimiter limiter, List<LimitRequest> asked, long until) {
        long within = until - System.nanoTime();
        if (limiter instanceof SlotHolder holder && within >= TimeUnit.MILLISECONDS.toNanos(1)) {
            return holder.holdAsync(asked, Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(within)));
        }
        return limiter.tryAcquireAsync(asked).thenApply(Held::none);
    }

    /** A slot held, as its caller sees it when the slot has come: admitted now, each reset counted from now. */
    private static Decision arrived(Decision held) {
        Duration waited = held.startsIn();
        List<Decision.LimitOutcome> now = new ArrayList<>(held.outcomes().size());
        for (Decision.LimitOutcome outcome : held.outcomes()) {
            Duration reset = outcome.resetAfter().minus(waited);
            now.add(new Decision.LimitOutcome(
                    outcome.request(),
                    outcome.allowed(),
                    outcome.remaining(),
                    reset.isNegative() ? Duration.ZERO : reset,
                    outcome.allowed() ? Duration.ZERO : outcome.retryAfter(),
                    outcome.adviceCapped()));
        }
        return new Decision(true, now, held.decidedAt(), held.servedLocally(), held.requests());
    }

    /** What a caller that gave up its slot is told: refused, advised that slot. */
    private static Decision gaveUp(Decision held) {
        List<Decision.LimitOutcome> refused = new ArrayList<>(held.outcomes().size());
        Duration rest = held.startsIn();
        for (Decision.LimitOutcome outcome : held.outcomes()) {
            refused.add(new Decision.LimitOutcome(
                    outcome.request(), false, 0, outcome.resetAfter(), rest, outcome.adviceCapped()));
        }
        return new Decision(false, refused, held.decidedAt().minus(rest));
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
