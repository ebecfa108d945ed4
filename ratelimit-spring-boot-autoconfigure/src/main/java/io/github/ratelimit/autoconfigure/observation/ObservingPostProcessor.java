package io.github.ratelimit.autoconfigure.observation;

import io.github.ratelimit.autoconfigure.internal.WarmUpCalls;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.LockManager;
import io.github.ratelimit.core.LockManager.LockHandle;
import io.github.ratelimit.core.LockManager.LockOptions;
import io.github.ratelimit.core.LockNotAcquiredException;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.SingleUseTokens;
import io.github.ratelimit.core.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.core.internal.Futures;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Makes each decision ({@code ratelimit.decision}), token consumption ({@code ratelimit.token.consume}) and lock
 * acquisition ({@code ratelimit.lock.acquire}) an Observation, so that a trace shows the limiter's time and outcome
 * inside the request. Low-cardinality key values only: limit names, algorithms, token purpose, lock name, outcome;
 * never an identifier, a token or a lock's key. With no observation handler registered the calls go straight through.
 */
final class ObservingPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<ObservationRegistry> registry;

    public ObservingPostProcessor(ObjectProvider<ObservationRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof RateLimiter || bean instanceof SingleUseTokens || bean instanceof LockManager)) {
            return bean;
        }
        ObservationRegistry observations = registry.getIfAvailable();
        if (observations == null || observations == ObservationRegistry.NOOP) {
            return bean;
        }
        if (bean instanceof RateLimiter limiter && !(bean instanceof ObservedRateLimiter)) {
            return new ObservedRateLimiter(limiter, observations);
        }
        if (bean instanceof SingleUseTokens tokens && !(bean instanceof ObservedTokens)) {
            return new ObservedTokens(tokens, observations);
        }
        if (bean instanceof LockManager locks && !(bean instanceof ObservedLocks)) {
            return new ObservedLocks(locks, observations);
        }
        return bean;
    }

    /** Observes a blocking call: the key values its result (or failure) gives, and the error. */
    static <T> T observe(
            ObservationRegistry registry,
            String name,
            Map<String, String> before,
            Supplier<T> call,
            Function<T, String> outcome) {
        if (registry.isNoop()) {
            return call.get();
        }
        Observation observation = Observation.createNotStarted(name, registry);
        before.forEach(observation::lowCardinalityKeyValue);
        observation.start();
        try (Observation.Scope scope = observation.openScope()) {
            T result = call.get();
            observation.lowCardinalityKeyValue("ratelimit.outcome", outcome.apply(result));
            return result;
        } catch (RuntimeException e) {
            observation.lowCardinalityKeyValue("ratelimit.outcome", failure(e));
            observation.error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }

    /** Observes a non-blocking call from when it is sent until it completes. */
    static <T> CompletionStage<T> observeAsync(
            ObservationRegistry registry,
            String name,
            Map<String, String> before,
            Supplier<CompletionStage<T>> call,
            Function<T, String> outcome) {
        if (registry.isNoop()) {
            return call.get();
        }
        Observation observation = Observation.createNotStarted(name, registry);
        before.forEach(observation::lowCardinalityKeyValue);
        observation.start();
        CompletionStage<T> stage;
        try (Observation.Scope scope = observation.openScope()) {
            stage = call.get();
        } catch (RuntimeException e) {
            observation.lowCardinalityKeyValue("ratelimit.outcome", failure(e));
            observation.error(e);
            observation.stop();
            throw e;
        }
        return stage.whenComplete((result, error) -> {
            if (error == null) {
                observation.lowCardinalityKeyValue("ratelimit.outcome", outcome.apply(result));
            } else {
                Throwable cause = Futures.cause(error);
                observation.lowCardinalityKeyValue("ratelimit.outcome", failure(cause));
                observation.error(cause);
            }
            observation.stop();
        });
    }

    private static String failure(Throwable error) {
        if (error instanceof RedisUnavailableException) {
            return "unavailable";
        }
        return error instanceof LockNotAcquiredException ? "busy" : "error";
    }

    static String outcome(Decision decision) {
        if (decision.allowed()) {
            return "allowed";
        }
        return decision.servedLocally() ? "rejected_local" : "rejected";
    }

    static Map<String, String> limits(List<LimitRequest> requests) {
        TreeSet<String> names = new TreeSet<>();
        TreeSet<String> algorithms = new TreeSet<>();
        for (LimitRequest request : requests) {
            RateLimit limit = request.limit();
            names.add(limit.plan() == null ? limit.name() : limit.name() + "/" + limit.plan());
            algorithms.add(limit.algorithm().name().toLowerCase(Locale.ROOT));
        }
        return Map.of(
                "ratelimit.limits", String.join(",", names), "ratelimit.algorithms", String.join(",", algorithms));
    }

    /** A lock's name as its options give it (a {@code @Locked} method's name); never its key. */
    static String lockName(LockOptions options) {
        return options == null || options.name() == null ? "programmatic" : options.name();
    }

    private static final class ObservedRateLimiter implements RateLimiter {
        private final RateLimiter delegate;
        private final ObservationRegistry registry;

        ObservedRateLimiter(RateLimiter delegate, ObservationRegistry registry) {
            this.delegate = delegate;
            this.registry = registry;
        }

        @Override
        public Decision tryAcquire(List<LimitRequest> requests) {
            if (WarmUpCalls.isWarmUp(requests)) {
                return delegate.tryAcquire(requests);
            }
            return observe(
                    registry,
                    "ratelimit.decision",
                    limits(requests),
                    () -> delegate.tryAcquire(requests),
                    ObservingPostProcessor::outcome);
        }

        @Override
        public CompletionStage<Decision> tryAcquireAsync(List<LimitRequest> requests) {
            if (WarmUpCalls.isWarmUp(requests)) {
                return delegate.tryAcquireAsync(requests);
            }
            return observeAsync(
                    registry,
                    "ratelimit.decision",
                    limits(requests),
                    () -> delegate.tryAcquireAsync(requests),
                    ObservingPostProcessor::outcome);
        }

        @Override
        public void reset(RateLimit limit, ClientIdentifier identifier) {
            delegate.reset(limit, identifier);
        }

        @Override
        public void forgetLocalState() {
            delegate.forgetLocalState();
        }

        @Override
        public java.util.concurrent.CompletionStage<Void> chargeAsync(List<LimitRequest> requests, long units) {
            return delegate.chargeAsync(requests, units);
        }

        @Override
        public java.util.concurrent.CompletionStage<Boolean> pauseAsync(
                RateLimit limit, ClientIdentifier identifier, java.time.Duration duration) {
            return delegate.pauseAsync(limit, identifier, duration);
        }
    }

    private static final class ObservedTokens implements SingleUseTokens {
        private final SingleUseTokens delegate;
        private final ObservationRegistry registry;

        ObservedTokens(SingleUseTokens delegate, ObservationRegistry registry) {
            this.delegate = delegate;
            this.registry = registry;
        }

        @Override
        public io.github.ratelimit.core.SingleUseTokens.IssuedToken issue(
                String purpose, Map<String, String> metadata, Duration ttl, int uses) {
            return delegate.issue(purpose, metadata, ttl, uses);
        }

        @Override
        public CompletionStage<io.github.ratelimit.core.SingleUseTokens.IssuedToken> issueAsync(
                String purpose, Map<String, String> metadata, Duration ttl, int uses) {
            return delegate.issueAsync(purpose, metadata, ttl, uses);
        }

        @Override
        public TokenConsumption consume(String purpose, String token) {
            return observe(
                    registry,
                    "ratelimit.token.consume",
                    Map.of("ratelimit.token.purpose", String.valueOf(purpose)),
                    () -> delegate.consume(purpose, token),
                    ObservedTokens::outcome);
        }

        @Override
        public CompletionStage<TokenConsumption> consumeAsync(String purpose, String token) {
            return observeAsync(
                    registry,
                    "ratelimit.token.consume",
                    Map.of("ratelimit.token.purpose", String.valueOf(purpose)),
                    () -> delegate.consumeAsync(purpose, token),
                    ObservedTokens::outcome);
        }

        @Override
        public boolean release(String purpose, String token) {
            return delegate.release(purpose, token);
        }

        @Override
        public CompletionStage<Boolean> releaseAsync(String purpose, String token) {
            return delegate.releaseAsync(purpose, token);
        }

        private static String outcome(TokenConsumption consumption) {
            return consumption.status().name().toLowerCase(Locale.ROOT);
        }
    }

    private static final class ObservedLocks implements LockManager, AutoCloseable {
        private final LockManager delegate;
        private final ObservationRegistry registry;

        ObservedLocks(LockManager delegate, ObservationRegistry registry) {
            this.delegate = delegate;
            this.registry = registry;
        }

        @Override
        public LockHandle tryAcquire(String key, LockOptions options) {
            return observe(
                    registry,
                    "ratelimit.lock.acquire",
                    Map.of("ratelimit.lock.name", lockName(options)),
                    () -> delegate.tryAcquire(key, options),
                    lock -> "acquired");
        }

        @Override
        public CompletionStage<LockHandle> tryAcquireAsync(String key, LockOptions options) {
            return observeAsync(
                    registry,
                    "ratelimit.lock.acquire",
                    Map.of("ratelimit.lock.name", lockName(options)),
                    () -> delegate.tryAcquireAsync(key, options),
                    lock -> "acquired");
        }

        @Override
        public void close() throws Exception {
            if (delegate instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }
    }
}
