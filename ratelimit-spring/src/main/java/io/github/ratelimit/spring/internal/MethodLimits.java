package io.github.ratelimit.spring.internal;

import io.github.ratelimit.annotation.CountOn;
import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.definition.LimitDefinition;
import io.github.ratelimit.spring.definition.Plans;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;

/** The compiled limits of one method: parsed expressions, checked once at startup. */
public record MethodLimits(
        MethodExpressions expressions,
        List<CompiledLimit> limits,
        @Nullable Fallback fallback,
        Set<FailureMode> failureModes,
        Duration maxWait) {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(MethodLimits.class);

    public MethodLimits(MethodExpressions expressions, List<CompiledLimit> limits, @Nullable Fallback fallback) {
        this(expressions, limits, fallback, failureModes(limits), longestWait(limits));
    }

    /** How long a refused call waits: the longest any of its limits allows. */
    private static Duration longestWait(List<CompiledLimit> limits) {
        Duration wait = Duration.ZERO;
        for (CompiledLimit limit : limits) {
            Duration mine = limit.definition().maxWait();
            wait = mine.compareTo(wait) > 0 ? mine : wait;
        }
        return wait;
    }

    private static Set<FailureMode> failureModes(List<CompiledLimit> limits) {
        Set<FailureMode> modes = EnumSet.noneOf(FailureMode.class);
        limits.forEach(limit -> modes.add(limit.definition().failureMode()));
        return Set.copyOf(modes); // immutable: the decision flow keeps it without copying it on each call
    }

    /**
     * One {@code @RateLimited}: its definition, its limit (a plan group's default plan's first), and how a call gives
     * its keys and cost (null when 1); for a plan group, the caller's plan decides on each call, named by {@code plan}
     * (null to ask the plan source), among {@code plans} (null for a limit of its own).
     */
    public record CompiledLimit(
            LimitDefinition definition,
            RateLimit limit,
            List<KeyExpression> keys,
            @Nullable Expression cost,
            String costText,
            @Nullable Expression plan,
            @Nullable Charge charge,
            @Nullable Plans plans) {}

    /**
     * What a charged limit's calls are charged once they ran.
     *
     * @param units the expression over {@code #result}
     * @param text the expression as written
     * @param failures whether failed calls are charged too ({@code #result} null)
     */
    public record Charge(Expression units, String text, boolean failures) {}

    /** Whether some limit of the method charges calls after they ran. */
    public boolean charges() {
        return limits.stream().anyMatch(l -> l.charge() != null);
    }

    /** What one invocation asks of the decision flow: its requests, failure modes and wait. */
    public RateLimitDecisions.Call call(
            @Nullable Object target, Object[] args, CallerContext caller, RateLimitDecisions decisions) {
        return new RateLimitDecisions.Call(
                expressions.source(), requests(target, args, caller, decisions), failureModes(), maxWait());
    }

    /** What an admitted call that failed takes (see {@link #failures(List)}), as a call of the decision flow. */
    public RateLimitDecisions.Call failures(RateLimitDecisions.Call admitted) {
        return RateLimitDecisions.Call.of(admitted.what(), failures(admitted.requests()), admitted.failureModes());
    }

    /**
     * What a failed call takes: the requests of the limits that count failures only (decided before without taking),
     * now taking their cost.
     */
    public List<LimitRequest> failures(List<LimitRequest> requests) {
        if (!countsFailures()) {
            return List.of();
        }
        List<LimitRequest> failures = new ArrayList<>();
        for (LimitRequest request : requests) {
            for (CompiledLimit compiled : limits) {
                if (compiled.definition().countOn() == CountOn.FAILURE && declares(compiled, request)) {
                    failures.add(request.taking());
                    break;
                }
            }
        }
        return failures;
    }

    /**
     * What a call that ran is charged, per charged limit: its requests and the units its expression gives for the
     * result. A failed call is charged only by limits that charge failures. An expression that gives no whole number
     * of at least 0 is logged and charges nothing (the call has run; its answer stands).
     */
    public List<RateLimitDecisions.Charge> charged(
            List<LimitRequest> requests,
            @Nullable Object target,
            Object[] args,
            CallerContext caller,
            @Nullable Object result,
            boolean failed) {
        List<RateLimitDecisions.Charge> charged = new ArrayList<>();
        EvaluationContext context = null;
        for (CompiledLimit compiled : limits) {
            Charge charge = compiled.charge();
            if (charge == null || (failed && !charge.failures())) {
                continue;
            }
            List<LimitRequest> mine = new ArrayList<>();
            for (LimitRequest request : requests) {
                if (declares(compiled, request)) {
                    mine.add(request);
                }
            }
            if (mine.isEmpty()) {
                continue; // an exempt call: nothing was asked, nothing is charged
            }
            if (context == null) {
                context = expressions.context(target, args, caller);
                context.setVariable("result", failed ? null : result);
            }
            Long units = units(charge, context);
            if (units != null && units > 0) {
                charged.add(new RateLimitDecisions.Charge(mine, units));
            }
        }
        return charged;
    }

    private @Nullable Long units(Charge charge, EvaluationContext context) {
        Object value;
        try {
            value = charge.units().getValue(context);
        } catch (EvaluationException | IllegalStateException e) {
            log.error(
                    "Rate limit charge '{}' of {} failed, nothing charged: {}",
                    charge.text(),
                    expressions.source(),
                    e.getMessage());
            return null;
        }
        if ((value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte)
                && ((Number) value).longValue() >= 0) {
            return ((Number) value).longValue();
        }
        log.error(
                "Rate limit charge '{}' of {} must give a whole number of at least 0, but gave {}; nothing charged",
                charge.text(),
                expressions.source(),
                value);
        return null;
    }

    /**
     * Whether a request is one of this compiled limit's: by the limit's name, since an operator's override of the name
     * changes the quota or window the request carries (a plan's limits are never overridden).
     */
    private static boolean declares(CompiledLimit compiled, LimitRequest request) {
        String name = request.limit().name();
        for (RateLimit declared : compiled.definition().limits()) {
            if (declared.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** Whether some limit of the method counts failed calls only. */
    public boolean countsFailures() {
        return limits.stream().anyMatch(l -> l.definition().countOn() == CountOn.FAILURE);
    }

    /** Resolves the keys and costs of one invocation into requests for the limiter. */
    List<LimitRequest> requests(
            @Nullable Object target, Object[] args, CallerContext caller, RateLimitDecisions decisions) {
        EvaluationContext context = expressions.context(target, args, caller);
        String source = expressions.source();
        List<LimitRequest> requests = new ArrayList<>();
        for (CompiledLimit compiled : limits) {
            if (compiled.definition().planGroup() != null) {
                planRequests(compiled, context, caller, decisions, requests);
                continue;
            }
            long cost = cost(compiled, context, compiled.limit().ceiling());
            Set<ClientIdentifier> identifiers = new LinkedHashSet<>();
            for (KeyExpression key : compiled.keys()) {
                identifiers.addAll(key.identifiers(context, caller, source));
            }
            if (identifiers.isEmpty()) {
                throw new RateLimitEvaluationException("No rate limit key of " + source + " produced an identifier "
                        + compiled.keys().stream().map(KeyExpression::text).toList()
                        + "; at least one is needed, or the call would be unlimited");
            }
            for (ClientIdentifier identifier : identifiers) {
                requests.add(compiled.definition().request(compiled.limit(), identifier, cost, decisions));
            }
        }
        return requests;
    }

    /** The caller's plan's limits for its one identifier (the customer). */
    private void planRequests(
            CompiledLimit compiled,
            EvaluationContext context,
            CallerContext caller,
            RateLimitDecisions decisions,
            List<LimitRequest> requests) {
        String source = expressions.source();
        List<ClientIdentifier> identifiers = compiled.keys().get(0).identifiers(context, caller, source);
        if (identifiers.size() != 1) {
            throw new RateLimitEvaluationException(
                    "The plan key " + compiled.keys().get(0).text() + " of " + source + " gave " + identifiers.size()
                            + " identifiers; a plan-limited call needs exactly one customer");
        }
        ClientIdentifier identifier = identifiers.get(0);
        String customer = identifier.value();
        Expression plan = compiled.plan();
        Plans.Resolved resolved = java.util.Objects.requireNonNull(compiled.plans())
                .resolve(
                        java.util.Objects.requireNonNull(compiled.definition().planGroup()),
                        plan == null ? null : () -> plan.getValue(context),
                        source,
                        customer);
        for (RateLimit limit : resolved.limits()) {
            requests.add(compiled.definition()
                    .request(limit, identifier, cost(compiled, context, limit.limit()), decisions));
        }
    }

    private long cost(CompiledLimit compiled, EvaluationContext context, long limit) {
        String source = expressions.source();
        if (compiled.cost() == null) {
            return 1;
        }
        Object value;
        try {
            value = compiled.cost().getValue(context);
        } catch (EvaluationException | IllegalStateException e) {
            throw RateLimitEvaluationException.ofCost(
                    "Rate limit cost '" + compiled.costText() + "' of " + source + " failed: " + e.getMessage(),
                    RateLimitEvaluationException.COST_DETAIL,
                    e);
        }
        long cost;
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            cost = ((Number) value).longValue();
        } else if (value instanceof Number number && number.doubleValue() == Math.rint(number.doubleValue())) {
            cost = number.longValue();
        } else if (value instanceof CharSequence text && text.toString().matches("\\d{1,18}")) {
            cost = Long.parseLong(text.toString());
        } else {
            throw RateLimitEvaluationException.ofCost(
                    "Rate limit cost '" + compiled.costText() + "' of " + source
                            + " must evaluate to a whole number, but was " + value,
                    RateLimitEvaluationException.COST_DETAIL,
                    null);
        }
        if (cost < 0 || cost > limit) {
            throw RateLimitEvaluationException.ofCost(
                    "Rate limit cost '" + compiled.costText() + "' of " + source + " evaluated to " + cost
                            + ", outside 0.." + limit + " (a cost above the limit could never be admitted)",
                    "The rate limit cost of this request, " + cost + ", is outside what its limit allows (0.." + limit
                            + ").",
                    null);
        }
        return cost;
    }
}
