package io.github.ratelimit.core;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.RateLimitListener.Completion;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter.Permit;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.core.internal.LogThrottle;
import io.github.ratelimit.core.internal.Unannounced;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one implementation, told each event in the order they were added. An implementation that
 * publishes events ({@link Source}) keeps one and announces through it; with no listener (the common case outside
 * Spring) an event costs one volatile read. Work run unannounced (the starter's warm-up) is told to
 * nobody. What a listener throws is logged (at most once a minute) and ignored.
 */
public final class RateLimitEvents implements RateLimitListener {

    /** An implementation that publishes its events. */
    public interface Source {

        /** Where listeners of this implementation's events are added. */
        RateLimitEvents events();
    }

    private static final Logger log = LoggerFactory.getLogger(RateLimitEvents.class);
    private static final LogThrottle FAILURES = new LogThrottle(Duration.ofMinutes(1));

    static final Completion<Object> IGNORED = new Completion<>() {
        @Override
        public void succeeded(Object result) {}

        @Override
        public void failed(Throwable error) {}
    };

    private volatile RateLimitListener[] listeners = {};

    /** Adds a listener (once: adding it again changes nothing). */
    public synchronized void add(RateLimitListener listener) {
        if (listener == this) {
            throw new IllegalArgumentException("events cannot listen to themselves");
        }
        if (!Arrays.asList(listeners).contains(listener)) {
            RateLimitListener[] more = Arrays.copyOf(listeners, listeners.length + 1);
            more[listeners.length] = listener;
            listeners = more;
        }
    }

    /** Removes a listener; whether it was there. */
    public synchronized boolean remove(RateLimitListener listener) {
        List<RateLimitListener> kept = new java.util.ArrayList<>(Arrays.asList(listeners));
        boolean removed = kept.remove(listener);
        listeners = kept.toArray(RateLimitListener[]::new);
        return removed;
    }

    /** The listeners, in the order they are told. */
    public List<RateLimitListener> listeners() {
        return List.of(listeners);
    }

    /** Runs a blocking operation, telling the completion how it ended. */
    public static <T> T observe(Completion<T> completion, Supplier<T> operation) {
        if (completion == IGNORED) {
            return operation.get();
        }
        T result;
        try {
            result = operation.get();
        } catch (RuntimeException | Error e) {
            told(() -> completion.failed(e));
            throw e;
        }
        told(() -> completion.succeeded(result));
        return result;
    }

    /**
     * Runs a non-blocking operation, telling the completion how it ended once it has. Cancelling the returned future
     * cancels the operation's.
     */
    public static <T, S extends CompletionStage<T>> CompletableFuture<T> observeAsync(
            Completion<T> completion, Supplier<S> operation) {
        CompletableFuture<T> started;
        try {
            started = operation.get().toCompletableFuture();
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        if (completion == IGNORED) {
            return started;
        }
        CompletableFuture<T> sent = started;
        CompletableFuture<T> observed = new CompletableFuture<>();
        sent.whenComplete((result, error) -> {
            told(() -> {
                if (error == null) {
                    completion.succeeded(result);
                } else {
                    completion.failed(Futures.cause(error));
                }
            });
            if (error == null) {
                observed.complete(result);
            } else {
                observed.completeExceptionally(error);
            }
        });
        // a caller that gives up cancels what it was given: the operation hears it (attempts stop, a lock acquired
        // after the caller gave up is released at once), and the listener is told
        observed.whenComplete((result, error) -> {
            if (observed.isCancelled()) {
                sent.cancel(false);
            }
        });
        return observed;
    }

    @Override
    public Completion<Decision> deciding(List<LimitRequest> requests) {
        return starting(listener -> listener.deciding(requests));
    }

    @Override
    public Completion<IssuedToken> issuingToken(String purpose) {
        return starting(listener -> listener.issuingToken(purpose));
    }

    @Override
    public Completion<TokenConsumption> consumingToken(String purpose) {
        return starting(listener -> listener.consumingToken(purpose));
    }

    @Override
    public Completion<Boolean> releasingToken(String purpose) {
        return starting(listener -> listener.releasingToken(purpose));
    }

    @Override
    public Completion<LockHandle> acquiringLock(String name) {
        return starting(listener -> listener.acquiringLock(name));
    }

    @Override
    public Completion<Permit> acquiringSlot(String name) {
        return starting(listener -> listener.acquiringSlot(name));
    }

    @Override
    public void fellBack(String what, FailureMode mode) {
        tellEach(listener -> listener.fellBack(what, mode));
    }

    @Override
    public void fellBack(String what, FailureMode mode, RedisUnavailableException cause) {
        tellEach(listener -> listener.fellBack(what, mode, cause));
    }

    @Override
    public void charged(String what, long units, @Nullable Throwable error) {
        tellEach(listener -> listener.charged(what, units, error));
    }

    @Override
    public void gaveBack(String what, GiveBack outcome) {
        tellEach(listener -> listener.gaveBack(what, outcome));
    }

    @Override
    public void waited(List<LimitRequest> requests, Wait outcome, Duration waited) {
        tellEach(listener -> listener.waited(requests, outcome, waited));
    }

    @Override
    public void leased(String name, Lease outcome, long units) {
        tellEach(l -> l.leased(name, outcome, units));
    }

    @Override
    public void lockSkipped(String name) {
        tellEach(listener -> listener.lockSkipped(name));
    }

    @Override
    public void lockLost(String name, LockManager.LossReason reason) {
        tellEach(listener -> listener.lockLost(name, reason));
    }

    @Override
    public void blocked(ClientIdentifier client) {
        tellEach(listener -> listener.blocked(client));
    }

    @Override
    public void operatorChanged(String action, String target) {
        tellEach(listener -> listener.operatorChanged(action, target));
    }

    /** Tells an event to every listener, unless the calling thread's work is unannounced. */
    private void tellEach(Consumer<RateLimitListener> event) {
        RateLimitListener[] all = listeners;
        if (all.length == 0 || Unannounced.now()) {
            return;
        }
        for (RateLimitListener listener : all) {
            told(() -> event.accept(listener));
        }
    }

    /** Announces a start to every listener; the completion that tells each of them the end. */
    @SuppressWarnings("unchecked")
    private <T> Completion<T> starting(Function<RateLimitListener, Completion<T>> start) {
        RateLimitListener[] all = listeners;
        if (all.length == 0 || Unannounced.now()) {
            return Completion.ignored();
        }
        if (all.length == 1) {
            return startedBy(all[0], start);
        }
        Completion<T>[] each = new Completion[all.length];
        for (int i = 0; i < all.length; i++) {
            each[i] = startedBy(all[i], start);
        }
        return new Completion<>() {
            @Override
            public void succeeded(T result) {
                for (Completion<T> completion : each) {
                    told(() -> completion.succeeded(result));
                }
            }

            @Override
            public void failed(Throwable error) {
                for (Completion<T> completion : each) {
                    told(() -> completion.failed(error));
                }
            }
        };
    }

    private static <T> Completion<T> startedBy(
            RateLimitListener listener, Function<RateLimitListener, Completion<T>> start) {
        try {
            Completion<T> completion = start.apply(listener);
            return completion == null ? Completion.ignored() : completion;
        } catch (RuntimeException e) {
            failedListener(e);
            return Completion.ignored();
        }
    }

    private static void told(Runnable tell) {
        try {
            tell.run();
        } catch (RuntimeException e) {
            failedListener(e);
        }
    }

    private static void failedListener(RuntimeException e) {
        if (FAILURES.due(false)) {
            log.warn("A rate limit listener failed; its event is ignored (logged at most once a minute)", e);
        }
    }
}
