package io.github.ratelimit.aop;

import io.github.ratelimit.annotation.CountOn;
import io.github.ratelimit.annotation.RetryAdvice;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.internal.Plans;
import io.github.ratelimit.internal.RateLimitDecisions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;

/** The compiled limits of one method: parsed expressions, checked once at startup. */
record MethodLimits(MethodExpressions expressions, List<CompiledLimit> limits, Fallback fallback) {

    /**
     * One {@code @RateLimited}: the limit, its key expressions and its cost expression (null when 1); for a plan group
     * ({@code planGroup} not null), the limit is the default plan's first and the caller's plan decides on each call,
     * named by {@code plan} (null to ask the plan source).
     */
    record CompiledLimit(
            RateLimit limit,
            List<KeyExpression> keys,
            Expression cost,
            String costText,
            boolean shadow,
            boolean failClosed,
            RetryAdvice retryAdvice,
            String planGroup,
            Expression plan,
            CountOn countOn) {}

    /** Whether some limit of the method counts failed calls only. */
    boolean countsFailures() {
        return limits.stream().anyMatch(l -> l.countOn() == CountOn.FAILURE);
    }

    /** Whether any limit of the method fails closed when Redis cannot decide. */
    boolean failClosed() {
        return limits.stream().anyMatch(CompiledLimit::failClosed);
    }

    /** Resolves the keys and costs of one invocation into requests for the limiter. */
    List<LimitRequest> requests(Object target, Object[] args, CallerContext caller, RateLimitDecisions decisions) {
        boolean allShadow = decisions.allShadow();
        EvaluationContext context = expressions.context(target, args, caller);
        String source = expressions.source();
        List<LimitRequest> requests = new ArrayList<>();
        for (CompiledLimit compiled : limits) {
            if (compiled.planGroup() != null) {
                planRequests(compiled, context, caller, decisions, allShadow, requests);
                continue;
            }
            long cost = cost(compiled, context, compiled.limit().limit());
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
                requests.add(new LimitRequest(
                        compiled.limit(),
                        identifier,
                        cost,
                        allShadow || compiled.shadow(),
                        decisions.staggered(compiled.retryAdvice()),
                        compiled.countOn() == CountOn.FAILURE));
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
            boolean allShadow,
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
        Plans.Resolved resolved = decisions
                .plans()
                .resolve(
                        compiled.planGroup(),
                        compiled.plan() == null ? null : () -> compiled.plan().getValue(context),
                        source,
                        customer);
        for (RateLimit limit : resolved.limits()) {
            requests.add(new LimitRequest(
                    limit,
                    identifier,
                    cost(compiled, context, limit.limit()),
                    allShadow || compiled.shadow(),
                    decisions.staggered(compiled.retryAdvice()),
                    compiled.countOn() == CountOn.FAILURE));
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
            throw new RateLimitEvaluationException(
                    "Rate limit cost '" + compiled.costText() + "' of " + source + " failed: " + e.getMessage(), e);
        }
        long cost;
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            cost = ((Number) value).longValue();
        } else if (value instanceof Number number && number.doubleValue() == Math.rint(number.doubleValue())) {
            cost = number.longValue();
        } else if (value instanceof CharSequence text && text.toString().matches("\\d{1,18}")) {
            cost = Long.parseLong(text.toString());
        } else {
            throw new RateLimitEvaluationException("Rate limit cost '" + compiled.costText() + "' of " + source
                    + " must evaluate to a whole number, but was " + value);
        }
        if (cost < 0 || cost > limit) {
            throw new RateLimitEvaluationException("Rate limit cost '" + compiled.costText() + "' of " + source
                    + " evaluated to " + cost + ", outside 0.."
                    + limit
                    + " (a cost above the limit could never be admitted)");
        }
        return cost;
    }
}
