package io.github.ratelimit.spring.observation;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Makes each decision ({@code ratelimit.decision}), token consumption ({@code ratelimit.token.consume}) and lock
 * acquisition ({@code ratelimit.lock.acquire}) an Observation, started as the operation starts (a child of the
 * observation current on the caller's thread, the request's) and stopped as it ends, so that a trace shows the
 * limiter's time and outcome inside the request. Low-cardinality key values only: limit names, algorithms, token
 * purpose, lock name, outcome; never an identifier, a token or a lock's key. With no observation handler registered
 * nothing is made.
 */
public final class RateLimitObservationListener implements RateLimitListener {

    private final ObservationRegistry registry;

    public RateLimitObservationListener(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Completion<Decision> deciding(List<LimitRequest> requests) {
        return observed("ratelimit.decision", limits(requests), RateLimitObservationListener::outcome);
    }

    @Override
    public Completion<TokenConsumption> consumingToken(String purpose) {
        return observed(
                "ratelimit.token.consume",
                Map.of("ratelimit.token.purpose", String.valueOf(purpose)),
                consumption -> consumption.status().name().toLowerCase(Locale.ROOT));
    }

    @Override
    public Completion<LockHandle> acquiringLock(String name) {
        return observed(
                "ratelimit.lock.acquire", Map.of("ratelimit.lock.name", String.valueOf(name)), lock -> "acquired");
    }

    /** An observation started now with these key values, stopped with the outcome (or the failure) when told. */
    private <T> Completion<T> observed(String name, Map<String, String> values, Function<T, String> outcome) {
        if (registry.isNoop()) {
            return Completion.ignored();
        }
        Observation observation = Observation.createNotStarted(name, registry);
        values.forEach(observation::lowCardinalityKeyValue);
        observation.start();
        return new Completion<>() {
            @Override
            public void succeeded(T result) {
                observation.lowCardinalityKeyValue("ratelimit.outcome", outcome.apply(result));
                observation.stop();
            }

            @Override
            public void failed(Throwable error) {
                observation.lowCardinalityKeyValue("ratelimit.outcome", failure(error));
                observation.error(error);
                observation.stop();
            }
        };
    }

    private static String failure(Throwable error) {
        if (error instanceof RedisUnavailableException) {
            return "unavailable";
        }
        return error instanceof LockNotAcquiredException ? "busy" : "error";
    }

    private static String outcome(Decision decision) {
        if (decision.allowed()) {
            return "allowed";
        }
        return decision.servedLocally() ? "rejected_local" : "rejected";
    }

    private static Map<String, String> limits(List<LimitRequest> requests) {
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
}
