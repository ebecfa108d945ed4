package io.github.ratelimit.spring.definition;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.decision.RateLimitDecisions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the compiled rules that apply to one request ask of the decision flow, rule by rule: the one owner of a rule's
 * identifier, plan and requests, for path rules and for limits routes name.
 */
final class RuleCall {

    private final Plans plans;
    private final String rawPath;
    private final CallerContext view;
    private final RateLimitDecisions decisions;
    private final long units;
    private final Set<FailureMode> failureModes = EnumSet.noneOf(FailureMode.class);
    private final List<String> names = new ArrayList<>();
    private final List<LimitRequest> requests = new ArrayList<>();
    private Duration wait = Duration.ZERO;

    RuleCall(Plans plans, String rawPath, CallerContext view, RateLimitDecisions decisions) {
        this(plans, rawPath, view, decisions, 1);
    }

    /** @param units how many times each rule takes its cost (a GraphQL operation's fields), at least 0 */
    RuleCall(Plans plans, String rawPath, CallerContext view, RateLimitDecisions decisions, long units) {
        this.plans = plans;
        this.rawPath = rawPath;
        this.view = view;
        this.decisions = decisions;
        this.units = units;
    }

    /**
     * Adds one rule's requests.
     *
     * @throws RateLimitEvaluationException when the rule's key is absent from the request and it rejects such requests
     */
    void add(FilterRule rule) {
        ClientIdentifier identifier = rule.identifier(view);
        if (identifier == null) {
            if (rule.missingKey == FilterRuleSpec.MissingKey.REJECT) {
                throw new RateLimitEvaluationException(
                        "Rate limit rule '" + rule.name + "' found no key in a request to " + rawPath,
                        "This request is rate limited by " + rule.keyDescription() + ", which is missing.",
                        null);
            }
            identifier =
                    ClientIdentifier.of("ip", java.util.Objects.requireNonNull(view.clientAddress(), "client address"));
        }
        failureModes.add(rule.definition.failureMode());
        wait = rule.definition.maxWait().compareTo(wait) > 0 ? rule.definition.maxWait() : wait;
        names.add(rule.name);
        List<RateLimit> limits = rule.planGroup == null
                ? rule.limits
                : plans.resolve(rule.planGroup, rule.plan(view), "rule '" + rule.name + "'", identifier.value())
                        .limits();
        if (rule.perPath) {
            identifier = identifier.perPath(rawPath);
        }
        for (RateLimit limit : limits) {
            long cost = rule.cost > 0 && units > Long.MAX_VALUE / rule.cost ? Long.MAX_VALUE : rule.cost * units;
            requests.add(rule.definition.request(limit, identifier, cost, decisions));
        }
    }

    /** The call, or null when no rule applied. */
    RateLimitDecisions.@Nullable Call build(String what) {
        return requests.isEmpty()
                ? null
                : new RateLimitDecisions.Call(what + " " + names, requests, failureModes, wait);
    }
}
