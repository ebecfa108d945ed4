package io.github.ratelimit.spring.definition;

import io.github.ratelimit.annotation.CountOn;
import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.annotation.RetryAdvice;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.LimitOverrides;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.definition.DeclaredLimits.DeclaredLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One declared limit, whatever declared it: a {@code @RateLimited} annotation or a path rule, each compiled into this
 * at startup by its own thin adapter (the annotation's and the rule's), which adds only how its keys and cost are
 * read from a call. Everything else about the limit is here, once: its limits (or the plan group whose caller's plan
 * gives them), how it counts, what a refusal tells, and what it looks like to operators.
 *
 * @param source where it is declared: the method ({@code com.example.Api.search(String)}) or the rule
 *     ({@code ratelimit.filter.rules[0] [/api/**]})
 * @param limits its limits; for a plan group, every plan's (what operators see; a call gets its caller's plan's)
 * @param planGroup the plan group whose caller's plan gives the limits, or null
 * @param keys who is counted, as operators address it: key expressions or key kinds
 * @param shadow whether it only counts and reports
 * @param failureMode what calls do when Redis cannot decide
 * @param retryAdvice what a refused caller is told
 * @param countOn which calls take from the budget
 * @param perPath whether each concrete path is counted apart (rules only)
 * @param maxWait how long a refused call may wait for room; zero refuses at once
 * @param charged whether calls are charged what they used after they ran (checked for one unit before, without
 *     taking)
 */
public record LimitDefinition(
        String source,
        List<RateLimit> limits,
        @Nullable String planGroup,
        List<String> keys,
        boolean shadow,
        FailureMode failureMode,
        RetryAdvice retryAdvice,
        CountOn countOn,
        boolean perPath,
        Duration maxWait,
        boolean charged) {

    public LimitDefinition {
        Objects.requireNonNull(source, "source");
        limits = List.copyOf(limits);
        keys = List.copyOf(keys);
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("a limit definition needs at least one limit (" + source + ")");
        }
        retryAdvice = retryAdvice == null ? RetryAdvice.DEFAULT : retryAdvice;
        countOn = countOn == null ? CountOn.CALL : countOn;
        failureMode = failureMode == null ? FailureMode.DEFAULT : failureMode;
        maxWait = maxWait == null ? Duration.ZERO : maxWait;
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException(
                    "the wait must not be negative, but was " + maxWait + " (" + source + ")");
        }
    }

    /**
     * The request of one identifier at one cost under one of this definition's limits (or of its caller's plan's), as
     * an operator's override of its name makes it (quota, window, shadow): shadow when this definition or every limit is, staggered as its advice and the application's default say,
     * checked only when it counts failures. The one place where a declaration becomes a request.
     */
    public LimitRequest request(RateLimit limit, ClientIdentifier identifier, long cost, RateLimitDecisions decisions) {
        LimitOverrides.Change change = limit.plan() == null ? decisions.override(limit.name()) : null;
        RateLimit effective = change == null ? limit : change.applyTo(limit);
        boolean shadowed = change != null && change.shadow() != null ? change.shadow() : shadow;
        return new LimitRequest(
                effective,
                identifier,
                // a cost above an overridden quota takes all of it: the call is admitted only when nothing was taken
                charged ? 1 : Math.min(cost, effective.ceiling()),
                shadowed || decisions.allShadow(),
                decisions.staggered(retryAdvice),
                countOn == CountOn.FAILURE || charged);
    }

    /** What operators see of it: one entry per limit. */
    public List<DeclaredLimit> declared() {
        List<DeclaredLimit> declared = new ArrayList<>(limits.size());
        for (RateLimit limit : limits) {
            declared.add(new DeclaredLimit(source, limit, keys, shadow, failureMode, perPath));
        }
        return declared;
    }
}
