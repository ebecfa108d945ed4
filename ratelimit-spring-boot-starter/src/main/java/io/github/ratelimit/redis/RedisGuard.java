package io.github.ratelimit.redis;

import io.github.ratelimit.core.RedisUnavailableException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Bounds every Redis call of the starter: a reply must come within the latency budget, else the call counts
 * as failed (its outcome is unknown, and it is never sent again; if it had not been sent yet, it never is).
 * After {@code failureThreshold} failures in a row the guard opens: calls fail at once, without touching Redis,
 * for {@code openFor}; then one call is let through, and its success closes the guard again. Shared by the rate
 * limiter, the tokens and the locks of one Redis.
 *
 * <p>Errors that mean the configuration is wrong (NOAUTH, WRONGPASS, NOPERM) are not turned into
 * {@link RedisUnavailableException}: they are thrown as they are, so they fail loudly instead of failing open.
 */
public final class RedisGuard {

    private final Duration budget;
    private final int failureThreshold;
    private final long openForNanos;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private final AtomicLong openUntil = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong rejectedWhileOpen = new AtomicLong();

    /**
     * @param budget the longest a call may take, at least 1 ms
     * @param failureThreshold failures in a row that open the guard, at least 1
     * @param openFor how long the guard stays open before letting a call through again
     */
    public RedisGuard(Duration budget, int failureThreshold, Duration openFor) {
        if (budget == null || budget.toMillis() < 1) {
            throw new IllegalArgumentException("ratelimit.redis.timeout must be at least 1 ms, but was " + budget);
        }
        if (failureThreshold < 1) {
            throw new IllegalArgumentException(
                    "ratelimit.redis.failure-threshold must be at least 1, but was " + failureThreshold);
        }
        if (openFor == null || openFor.isNegative()) {
            throw new IllegalArgumentException("ratelimit.redis.open-for must not be negative, but was " + openFor);
        }
        this.budget = budget;
        this.failureThreshold = failureThreshold;
        this.openForNanos = openFor.toNanos();
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
        return until != 0 && System.nanoTime() - until < 0;
    }

    <T> T call(Supplier<CompletionStage<T>> call) {
        long until = openUntil.get();
        long now = System.nanoTime();
        if (until != 0 && now - until < 0) {
            rejectedWhileOpen.incrementAndGet();
            throw new RedisUnavailableException(
                    "Redis is considered unavailable after " + failureThreshold + " failures in a row",
                    Duration.ofNanos(until - now),
                    null);
        }
        if (until != 0 && !openUntil.compareAndSet(until, now + openForNanos)) {
            // another caller is the half-open probe; keep refusing until it succeeds
            rejectedWhileOpen.incrementAndGet();
            throw new RedisUnavailableException("Redis is being probed after failures", Duration.ofSeconds(1), null);
        }
        CompletableFuture<T> future = null;
        try {
            future = call.get().toCompletableFuture();
            T result = future.get(budget.toNanos(), TimeUnit.NANOSECONDS);
            consecutiveFailures.set(0);
            openUntil.set(0);
            return result;
        } catch (TimeoutException e) {
            future.cancel(false); // what has not been sent yet is not sent
            throw failed("Redis did not answer within " + budget.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            future.cancel(false);
            Thread.currentThread().interrupt();
            throw failed("Interrupted while waiting for Redis", e);
        } catch (ExecutionException | CompletionException | IllegalStateException e) {
            Throwable cause = ScriptExecutor.unwrap(e);
            if (isConfigurationError(cause)) {
                throw cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
            }
            throw failed("Redis call failed: " + cause.getMessage(), cause);
        } catch (RuntimeException e) {
            if (isConfigurationError(e)) {
                throw e;
            }
            throw failed("Redis call failed: " + e.getMessage(), e);
        }
    }

    private RedisUnavailableException failed(String message, Throwable cause) {
        failures.incrementAndGet();
        if (consecutiveFailures.incrementAndGet() >= failureThreshold) {
            openUntil.set(System.nanoTime() + openForNanos);
        }
        return new RedisUnavailableException(message, Duration.ofSeconds(1), cause);
    }

    private static boolean isConfigurationError(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null
                    && (message.contains("NOAUTH") || message.contains("WRONGPASS") || message.contains("NOPERM"))) {
                return true;
            }
        }
        return false;
    }
}
