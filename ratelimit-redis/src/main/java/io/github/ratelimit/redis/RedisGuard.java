package io.github.ratelimit.redis;

import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.redis.internal.AclRefusals;
import io.github.ratelimit.redis.internal.BudgetTimer;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds every Redis call of the starter: a reply must come within the latency budget, else the call counts
 * as failed (its outcome is unknown, and it is never sent again; if it had not been sent yet, it never is).
 * After {@code failureThreshold} failures in a row the guard opens: calls fail at once, without touching Redis,
 * for {@code openFor}; then one call is let through, and its success closes the guard again. Shared by the rate
 * limiter, the tokens and the locks of one Redis.
 *
 * <p>Until the first connection is made ({@link RedisConnector}), calls fail at once without touching Redis, so no
 * caller ever waits for a connection. Outages are logged, not each call: one WARN when Redis becomes unavailable
 * (what is tried, why, and what callers get), at most one line every {@value OutageLog#REPEAT_LOG_SECONDS} s while it
 * stays so (with the number of calls answered without it), one INFO when it answers again.
 *
 * <p>Credentials refused after the connection was made (NOAUTH, WRONGPASS) are not turned into
 * {@link RedisUnavailableException}: they are thrown as they are, so they fail loudly instead of failing open. A
 * refusal of the limiter's commands (NOPERM, scripting missing) is a failed call, named as such: answered as in an
 * outage, so a token is used once or not at all and a lock never granted twice.
 *
 * <p>Why not Resilience4j's CircuitBreaker and TimeLimiter: they would add a dependency to every application for what
 * is here a few hundred lines, and neither tells a call that was never sent (safe to fail open at once) from one that
 * was sent and not answered (its outcome unknown, never resent), nor keeps callers off a client that has not made its
 * first connection; Redisson's own timeouts retry, which could count a decision twice, and never open.
 */
public final class RedisGuard {

    private static final Logger log = LoggerFactory.getLogger(RedisGuard.class);
    private final String target;
    private final OutageLog outage;
    private final Duration budget;
    private final int failureThreshold;
    private final long openForNanos;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private final AtomicLong openUntil = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong rejectedWhileOpen = new AtomicLong();
    private final AtomicBoolean probing = new AtomicBoolean();
    private final AtomicLong slowInTheJvm = new AtomicLong();
    private volatile @Nullable Supplier<CompletionStage<?>> prober;
    private volatile boolean connected = true;
    private volatile @Nullable String refusal;

    /**
     * @param budget the longest a call may take, at least 1 ms
     * @param failureThreshold failures in a row that open the guard, at least 1
     * @param openFor how long the guard stays open before letting a call through again
     */
    public RedisGuard(Duration budget, int failureThreshold, Duration openFor) {
        this("Redis", budget, failureThreshold, openFor);
    }

    /**
     * @param target what the guarded calls go to, for the log (such as {@code redis://10.0.0.5:6379})
     * @param budget the longest a call may take, at least 1 ms
     * @param failureThreshold failures in a row that open the guard, at least 1
     * @param openFor how long the guard stays open before letting a call through again
     */
    public RedisGuard(String target, Duration budget, int failureThreshold, Duration openFor) {
        if (budget == null || budget.toMillis() < 1) {
            throw new IllegalArgumentException(Messages.atLeast("ratelimit.redis.timeout", "1 ms", budget));
        }
        if (failureThreshold < 1) {
            throw new IllegalArgumentException(
                    Messages.atLeast("ratelimit.redis.failure-threshold", 1, failureThreshold));
        }
        if (openFor == null || openFor.isNegative()) {
            throw new IllegalArgumentException(Messages.negative("ratelimit.redis.open-for", openFor));
        }
        BudgetTimer.ready(); // started here, on the thread that builds the guard, never on an event loop
        this.target = target;
        this.outage = new OutageLog(target);
        this.budget = budget;
        this.failureThreshold = failureThreshold;
        this.openForNanos = openFor.toNanos();
    }

    /**
     * A guard that refuses every call at once until a {@link RedisConnector} has made the first connection, so that
     * nothing waits for a connection.
     */
    public static RedisGuard awaitingConnection(
            String target, Duration budget, int failureThreshold, Duration openFor) {
        RedisGuard guard = new RedisGuard(target, budget, failureThreshold, openFor);
        guard.connecting();
        return guard;
    }

    /** 200 ms per call; open for 1 s after 5 failures in a row. */
    public static RedisGuard defaults() {
        return new RedisGuard(Duration.ofMillis(200), 5, Duration.ofSeconds(1));
    }

    public Duration budget() {
        return budget;
    }

    /** Calls that failed or timed out so far. */
    public long failures() {
        return failures.get();
    }

    /** Calls refused without trying, while the guard was open. */
    public long rejectedWhileOpen() {
        return rejectedWhileOpen.get();
    }

    /** Whether calls are currently refused without trying. */
    public boolean isOpen() {
        long until = openUntil.get();
        return !connected || (until != 0 && System.nanoTime() - until < 0);
    }

    /** Whether the first connection has been made (always true for a guard no connector manages). */
    public boolean isConnected() {
        return connected;
    }

    /** Since when Redis is unavailable (not connected yet, or the breaker opened), or null while it answers. */
    public @Nullable Instant unavailableSince() {
        return outage.since();
    }

    /** Why Redis was last found unavailable, or null. */
    public @Nullable String lastError() {
        return outage.lastError();
    }

    /** What the guarded calls go to, as given for the log. */
    public String target() {
        return target;
    }

    /**
     * What Redis refuses of the limiter's commands, with the rule that would allow it, while it does (an ACL, a server
     * without scripting); null otherwise. Redis is connected then, but calls are answered without it, as in an outage.
     */
    public @Nullable String refusal() {
        return refusal;
    }

    /** The target, and why calls are answered without it if they are: for the startup line. */
    public String state() {
        String refused = refusal;
        if (refused != null) {
            return target() + " (" + AclRefusals.REFUSES + ": " + refused + ")";
        }
        return target() + (isConnected() ? "" : " (not connected yet: " + lastError() + ")");
    }

    /** Refuses every call at once until {@link #connected()}: nothing waits for a connection being made. */
    void connecting() {
        outage.refusing("connecting in the background");
        connected = false;
    }

    /** An attempt to connect failed; the first one is logged. */
    void notConnected(String cause) {
        connected = false;
        refusal = null;
        outage.unavailable(cause);
    }

    /**
     * Redis answered the attempt, but refused the limiter's commands: calls are refused at once, never sent (nothing
     * is taken or lost), until an attempt is allowed; the first refusal is logged.
     */
    void refused(String cause) {
        connected = false;
        refusal = cause;
        outage.refused(cause);
    }

    /** The connection is made: calls go to Redis from now on. */
    void connected() {
        refusal = null;
        connected = true;
        consecutiveFailures.set(0);
        openUntil.set(0);
        outage.answersAgain();
    }

    /**
     * Runs a call to Redis within the budget and through the breaker, waiting on the calling thread: the capability
     * packages send every script so, and an application may send its own Redis calls so to share the limiter's budget.
     *
     * @throws RedisUnavailableException when Redis does not answer within the budget, fails, or the breaker is open
     */
    public <T> T call(Supplier<CompletionStage<T>> call) {
        admit();
        CompletableFuture<T> future = null;
        try {
            future = call.get().toCompletableFuture();
            T result = future.get(budget.toNanos(), TimeUnit.NANOSECONDS);
            answered();
            return result;
        } catch (TimeoutException e) {
            future.cancel(false); // what has not been sent yet is not sent
            throw timedOut(e);
        } catch (InterruptedException e) {
            future.cancel(false);
            Thread.currentThread().interrupt();
            throw failed("Interrupted while waiting for Redis", e, false);
        } catch (ExecutionException | CompletionException | IllegalStateException e) {
            throw failure(Futures.cause(e));
        } catch (RuntimeException e) {
            throw failure(e);
        }
    }

    /**
     * The same call without waiting: the returned future completes with the reply, or fails with
     * {@link RedisUnavailableException} when the budget ends first (and then what has not been sent yet is never
     * sent), or with the configuration error as it is. No thread waits: the budget is kept by a lock-free timer
     * ({@link BudgetTimer}), on whose thread a call that ran out of budget completes.
     */
    public <T> CompletableFuture<T> callAsync(Supplier<CompletionStage<T>> call) {
        CompletableFuture<T> future;
        try {
            admit();
            future = call.get().toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e instanceof RedisUnavailableException ? e : failure(e));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        BudgetTimer.within(
                future,
                budget,
                () -> result.completeExceptionally(timedOut(new TimeoutException())),
                (reply, error) -> {
                    if (error == null) {
                        answered();
                        result.complete(reply);
                    } else {
                        result.completeExceptionally(failure(Futures.cause(error)));
                    }
                });
        return result;
    }

    /**
     * Whether {@code error} (or a cause of it) is a call refused before any connection to Redis was made: it never
     * reached Redis, so it took nothing there and nothing is to be given back.
     */
    public static boolean neverSent(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof NeverSent) {
                return true;
            }
        }
        return false;
    }

    /**
     * The cause of a refusal made while the first connection was never made: the call never reached Redis, so it took
     * nothing and nothing is to be given back.
     */
    static final class NeverSent extends RuntimeException {
        NeverSent() {
            super("never sent: no connection to Redis was ever made", null, false, false);
        }
    }

    /** Throws without touching Redis while it is not connected or the breaker is open. */
    private void admit() {
        if (!connected) {
            rejectedWhileOpen.incrementAndGet();
            String refused = refusal;
            throw outage.answeredWithout(
                    OutageLog.named(target)
                            + (refused != null
                                    ? " " + AclRefusals.REFUSES + ": " + refused
                                    : " is not connected yet: " + outage.lastError()),
                    Duration.ofSeconds(1),
                    new NeverSent());
        }
        long until = openUntil.get();
        long now = System.nanoTime();
        if (until != 0 && now - until < 0) {
            rejectedWhileOpen.incrementAndGet();
            throw outage.answeredWithout(
                    "Redis is considered unavailable after " + failureThreshold + " failures in a row",
                    Duration.ofNanos(until - now),
                    null);
        }
        if (until != 0 && !openUntil.compareAndSet(until, now + openForNanos)) {
            // another caller is the half-open probe; keep refusing until it succeeds
            rejectedWhileOpen.incrementAndGet();
            throw outage.answeredWithout("Redis is being probed after failures", Duration.ofNanos(openForNanos), null);
        }
    }

    private void answered() {
        consecutiveFailures.set(0);
        openUntil.set(0);
        if (outage.since() != null) {
            outage.answersAgain();
        }
    }

    private RedisUnavailableException timedOut(Throwable cause) {
        return failed("Redis did not answer within " + budget.toMillis() + " ms", cause, true);
    }

    /**
     * A refusal of the limiter's commands (an ACL changed at run time, scripting turned off) as a failed call, named:
     * answered as in an outage, and the guard opens after as many in a row as any failure; a wrong password as it is
     * (it must fail loudly); anything else as a failed call.
     */
    private RuntimeException failure(Throwable cause) {
        String refused = AclRefusals.refusal(cause);
        if (refused != null) {
            return failed("Redis " + AclRefusals.REFUSES + ": " + refused, cause, false);
        }
        if (RedisErrors.isConfigurationError(cause)) {
            return cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
        }
        return failed("Redis call failed: " + cause.getMessage(), cause, false);
    }

    /**
     * A failed call: counted, and after {@code failureThreshold} in a row the guard opens. When the last of them ran
     * out of budget and a prober is set, the guard first asks Redis directly: calls can run out of budget before they
     * were even sent (a cold or busy JVM: class loading, JIT, a starved event loop), and that is no evidence that
     * Redis fails. If the probe is answered in time the count starts again and the guard stays closed; otherwise it
     * opens.
     */
    private RedisUnavailableException failed(String message, Throwable cause, boolean timedOut) {
        failures.incrementAndGet();
        Duration retryAfter = Duration.ofSeconds(1);
        if (consecutiveFailures.incrementAndGet() >= failureThreshold) {
            Supplier<CompletionStage<?>> probe = prober;
            if (timedOut && probe != null) {
                probeBeforeOpening(probe, message);
            } else {
                open(message);
                retryAfter = Duration.ofNanos(Math.max(openForNanos, 1));
            }
        }
        return outage.answeredWithout(message, retryAfter, cause);
    }

    private void open(String message) {
        openUntil.set(System.nanoTime() + openForNanos);
        outage.unavailable(message);
    }

    /** One probe at a time; calls go on to Redis (each within its budget) while it is out. */
    private void probeBeforeOpening(Supplier<CompletionStage<?>> probe, String message) {
        if (!probing.compareAndSet(false, true)) {
            return;
        }
        long started = System.nanoTime();
        Duration probeBudget = probeBudget();
        CompletableFuture<?> answer;
        try {
            answer = probe.get().toCompletableFuture();
        } catch (RuntimeException e) {
            probing.set(false);
            open(message);
            return;
        }
        Runnable timedOut = () -> {
            open(message + "; nor did it answer a probe within " + probeBudget.toMillis() + " ms");
            probing.set(false);
        };
        BudgetTimer.within(answer, probeBudget, timedOut, (reply, error) -> {
            if (error != null) {
                open(message + "; a probe failed too: " + Futures.cause(error).getMessage());
            } else {
                consecutiveFailures.set(0);
                long excused = slowInTheJvm.incrementAndGet();
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                if (excused == 1) {
                    log.info(
                            "{} calls in a row ran out of their {} ms budget, but {} answered a probe in {} ms:"
                                    + " the time was spent in this JVM before Redis (a cold start, a busy machine),"
                                    + " so the guard stays closed; those calls were answered without Redis",
                            failureThreshold,
                            budget.toMillis(),
                            OutageLog.named(target),
                            tookMillis);
                } else {
                    log.debug(
                            "Calls ran out of budget but {} answered a probe in {} ms",
                            OutageLog.named(target),
                            tookMillis);
                }
            }
            probing.set(false);
        });
    }

    /** How long a probe may take: five budgets, at least a second. */
    Duration probeBudget() {
        Duration five = budget.multipliedBy(5);
        return five.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : five;
    }

    /**
     * Sets how Redis is asked directly whether it answers, before the guard opens after calls that ran out of budget
     * (see {@link #failed}); without one, such calls open the guard as any failure does.
     */
    void prober(Supplier<CompletionStage<?>> prober) {
        this.prober = prober;
    }

    /** Times the guard stayed closed because Redis answered a probe after calls ran out of budget. */
    public long slowInTheJvm() {
        return slowInTheJvm.get();
    }
}
