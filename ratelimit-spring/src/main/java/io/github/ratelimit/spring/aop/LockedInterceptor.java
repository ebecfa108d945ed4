package io.github.ratelimit.spring.aop;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.internal.LogThrottle;
import io.github.ratelimit.core.locks.LockLostException;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.spring.internal.MethodExpressions;
import io.github.ratelimit.spring.internal.invocation.DeferredInvocation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Runs a {@code @Locked} method under its lock: takes it (waiting if asked), hands it to a {@link LockHandle}
 * parameter, and releases it when the method returns, throws, or (for a {@code CompletionStage}) completes. A method
 * that skips when busy (a scheduled job) returns nothing instead of refusing, logged at DEBUG and told to the lock
 * manager's listeners as {@code skipped}, and also skips (WARN, once a minute) when Redis cannot be asked; one that
 * asks to be interrupted is, when its lock is lost while it runs.
 */
final class LockedInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(LockedInterceptor.class);

    private final LockedMethods methods;
    private final ObjectProvider<LockManager> locks;
    private final ObjectProvider<CallerContext> caller;

    LockedInterceptor(LockedMethods methods, ObjectProvider<LockManager> locks, ObjectProvider<CallerContext> caller) {
        this.methods = methods;
        this.locks = locks;
        this.caller = caller;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = AnnotationAdvisor.targetMethod(invocation);
        LockedMethods.LockedMethod declaration = methods.get(method);
        Object deferred = DeferredInvocation.deferredOrNull(
                invocation,
                method,
                "@Locked",
                () -> caller.getIfAvailable(() -> CallerContext.NONE),
                () -> new DeferredInvocation.Step<LockHandle>() {
                    @Override
                    public CompletionStage<LockHandle> start(CallerContext context) {
                        return locks.getObject()
                                .tryAcquireAsync(lockKey(declaration, invocation, context), declaration.options());
                    }

                    @Override
                    public void prepare(LockHandle lock, Object[] arguments) {
                        if (declaration.handleParameter() >= 0) {
                            arguments[declaration.handleParameter()] = lock;
                        }
                    }

                    @Override
                    public @Nullable CompletionStage<Throwable> interruption(LockHandle lock) {
                        if (!declaration.interruptOnLoss()) {
                            return null;
                        }
                        CompletableFuture<Throwable> lost = new CompletableFuture<>();
                        lock.whenLost(reason -> lost.complete(new LockLostException(lock.key())));
                        return lost;
                    }

                    @Override
                    public CompletionStage<?> finish(LockHandle lock, DeferredInvocation.End end) {
                        return lock.releaseAsync();
                    }
                });
        if (deferred != null) {
            return declaration.skipWhenBusy() ? skippingWhenBusy(deferred, declaration) : deferred;
        }
        LockHandle lock;
        try {
            lock = locks.getObject()
                    .tryAcquire(
                            lockKey(declaration, invocation, caller.getIfAvailable(() -> CallerContext.NONE)),
                            declaration.options());
        } catch (LockNotAcquiredException busy) {
            if (!declaration.skipWhenBusy()) {
                throw busy;
            }
            skipped(declaration, busy);
            return null;
        } catch (RedisUnavailableException unavailable) {
            if (!declaration.skipWhenBusy()) {
                throw unavailable;
            }
            notRun(declaration, unavailable);
            return null;
        }
        if (declaration.handleParameter() >= 0) {
            invocation.getArguments()[declaration.handleParameter()] = lock;
        }
        Interruption interruption = declaration.interruptOnLoss() ? new Interruption(lock) : null;
        try {
            return invocation.proceed();
        } finally {
            if (interruption != null) {
                interruption.end();
            }
            lock.release();
        }
    }

    /**
     * Interrupts the method's thread if its lock is lost while the method runs, never after: an interrupt that landed
     * just as the method returned is cleared, so that it does not leak into the caller.
     */
    private static final class Interruption {

        private final Thread thread = Thread.currentThread();
        private boolean running = true;
        private boolean interrupted;

        Interruption(LockHandle lock) {
            lock.whenLost(reason -> interrupt());
        }

        private synchronized void interrupt() {
            if (running) {
                interrupted = true;
                thread.interrupt();
            }
        }

        synchronized void end() {
            running = false;
            if (interrupted) {
                Thread.interrupted();
            }
        }
    }

    /**
     * A deferred result that ends empty, instead of failing, when its lock is busy or cannot be asked for (see
     * {@link #skips}).
     */
    private Object skippingWhenBusy(Object deferred, LockedMethods.LockedMethod declaration) {
        if (deferred instanceof Mono<?> mono) {
            return mono.onErrorResume(error -> skips(declaration, error), error -> Mono.empty());
        }
        if (deferred instanceof Flux<?> flux) {
            return flux.onErrorResume(error -> skips(declaration, error), error -> Flux.empty());
        }
        if (deferred instanceof CompletionStage<?> stage) {
            return stage.exceptionallyCompose(error -> {
                Throwable cause = io.github.ratelimit.core.internal.Futures.cause(error);
                return skips(declaration, cause)
                        ? CompletableFuture.completedFuture(null)
                        : CompletableFuture.failedFuture(cause);
            });
        }
        return deferred; // an adapted type (a Kotlin Flow, ...): refused as any other method
    }

    /**
     * Whether a run that could not take its lock is skipped: when the lock was busy (counted as {@code skipped}), or when
     * Redis could not be asked (a run is never made without its lock: logged at WARN, once a minute at most, rather than
     * an ERROR with a stack trace per tick from the scheduler).
     */
    private boolean skips(LockedMethods.LockedMethod declaration, Throwable error) {
        if (error instanceof LockNotAcquiredException busy) {
            skipped(declaration, busy);
            return true;
        }
        if (error instanceof RedisUnavailableException unavailable) {
            notRun(declaration, unavailable);
            return true;
        }
        return false;
    }

    private static final LogThrottle NOT_RUN = new LogThrottle(Duration.ofMinutes(1));

    private void notRun(LockedMethods.LockedMethod declaration, RedisUnavailableException unavailable) {
        if (NOT_RUN.due(false)) {
            log.warn(
                    "Skipped {}: its lock '{}' could not be asked for ({}); a run is never made without its lock"
                            + " (logged once a minute at most)",
                    declaration.expressions().source(),
                    declaration.name(),
                    unavailable.getMessage());
        } else {
            log.debug(
                    "Skipped {}: Redis could not be asked for its lock",
                    declaration.expressions().source());
        }
    }

    private void skipped(LockedMethods.LockedMethod declaration, LockNotAcquiredException busy) {
        log.debug(
                "Skipped {}: lock '{}' is held elsewhere for up to {} ms more",
                declaration.expressions().source(),
                declaration.name(),
                busy.retryAfter().toMillis());
        if (locks.getObject() instanceof RateLimitEvents.Source source) {
            source.events().lockSkipped(declaration.name());
        }
    }

    /** The lock's key: its name, and the client identifier of its key expression when it has one. */
    private static String lockKey(
            LockedMethods.LockedMethod declaration, MethodInvocation invocation, CallerContext context) {
        if (declaration.key() == null) {
            return LockManager.keyOf(declaration.name());
        }
        MethodExpressions expressions = declaration.expressions();
        return LockManager.keyOf(
                declaration.name(),
                declaration
                        .key()
                        .identifier(
                                expressions.context(invocation.getThis(), invocation.getArguments(), context),
                                context,
                                expressions.source()));
    }
}
