package io.github.ratelimit.spring.aop;

import io.github.ratelimit.annotation.CountOn;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.RateLimits;
import io.github.ratelimit.core.CalendarPeriod;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.spring.definition.DeclaredLimits.DeclaredLimit;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.LimitDefinition;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.internal.AnnotatedMethods;
import io.github.ratelimit.spring.internal.Fallback;
import io.github.ratelimit.spring.internal.KeyExpression;
import io.github.ratelimit.spring.internal.MethodExpressions;
import io.github.ratelimit.spring.internal.MethodLimits;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * Compiles and caches the {@link RateLimited} declarations of methods, and checks that every method sharing
 * a limit name declares the same limits and keys.
 */
final class RateLimitedMethods {

    private final Map<Method, MethodLimits> compiled = new ConcurrentHashMap<>();
    private final Supplier<Plans> plans;
    private final Supplier<KeyResolvers> keys;

    /**
     * @param plans the plan groups that {@code plans} attributes name, looked up when a method is checked
     * @param keys the kinds of key that {@code key} attributes may name, looked up when a method is checked
     */
    RateLimitedMethods(Supplier<Plans> plans, Supplier<KeyResolvers> keys) {
        this.plans = plans;
        this.keys = keys;
    }

    private final Map<String, NamedDefinition> names = new ConcurrentHashMap<>();

    private record NamedDefinition(String source, Set<String> limits, Set<String> keys) {}

    /** Every limit compiled so far (all annotated bean methods, once the startup check has run). */
    List<DeclaredLimit> declared() {
        List<DeclaredLimit> all = new ArrayList<>();
        for (MethodLimits method : compiled.values()) {
            for (MethodLimits.CompiledLimit limit : method.limits()) {
                all.addAll(limit.definition().declared());
            }
        }
        all.sort(Comparator.comparing(DeclaredLimit::source));
        return all;
    }

    /** The compiled limits of a method (the most specific one, on the user's class). */
    MethodLimits get(Method method) {
        MethodLimits limits = compiled.get(method);
        if (limits == null) {
            limits = compiled.computeIfAbsent(method, this::compile);
        }
        return limits;
    }

    private MethodLimits compile(Method method) {
        MethodExpressions expressions = new MethodExpressions(method, "RateLimited");
        // the method's own limits replace its class's
        Set<RateLimited> annotations = AnnotatedMethods.declaresRateLimits(method)
                ? AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimited.class, RateLimits.class)
                : AnnotatedElementUtils.findMergedRepeatableAnnotations(
                        method.getDeclaringClass(), RateLimited.class, RateLimits.class);
        if (annotations.isEmpty()) {
            throw expressions.invalid("no @RateLimited annotation");
        }
        List<MethodLimits.CompiledLimit> limits = new ArrayList<>();
        for (RateLimited annotation : annotations) {
            limits.add(compile(annotation, method, expressions));
        }
        register(limits, expressions);
        return new MethodLimits(expressions, List.copyOf(limits), Fallback.of(method, annotations, expressions));
    }

    private MethodLimits.CompiledLimit compile(RateLimited annotation, Method method, MethodExpressions expressions) {
        if (!annotation.plans().isEmpty()) {
            return compilePlans(annotation, expressions);
        }
        if (!annotation.plan().isEmpty()) {
            throw expressions.invalid("plan '" + annotation.plan() + "' is given without plans (the plan group)");
        }
        String name = annotation.name().isEmpty() ? defaultName(method) : annotation.name();
        RateLimit limit = limitOf(annotation, name, expressions);
        if (annotation.waitMs() < 0) {
            throw expressions.invalid(Messages.atLeast("waitMs", 0, annotation.waitMs()));
        }
        if (annotation.key().length == 0) {
            throw expressions.invalid("key must name at least one expression");
        }
        List<KeyExpression> keys = new ArrayList<>();
        for (String text : annotation.key()) {
            keys.add(KeyExpression.of("Rate limit", text, expressions, this.keys.get()));
        }
        String costText = annotation.cost().trim();
        Expression cost = null;
        if (!costText.equals("1")) {
            cost = expressions.parse(costText, "cost");
            Object constant = constantValue(cost);
            if (constant instanceof Number number
                    && (number.longValue() < 0 || number.longValue() > annotation.limit())) {
                throw expressions.invalid("cost " + number + " is outside 0.." + annotation.limit() + " (the limit)");
            }
        }
        return new MethodLimits.CompiledLimit(
                definition(expressions, List.of(limit), null, keys, annotation),
                limit,
                keys,
                cost,
                costText,
                null,
                charge(annotation, method, expressions),
                null);
    }

    /** The annotation's limit with its options (calendar period, penalty, share), or an error naming the bad one. */
    private static RateLimit limitOf(RateLimited annotation, String name, MethodExpressions expressions) {
        try {
            RateLimit limit;
            CalendarPeriod period = CalendarPeriod.parseIfGiven(annotation.period(), annotation.zone());
            if (period == null) {
                limit = RateLimit.of(name, annotation.algorithm(), annotation.limit(), annotation.windowMs());
            } else {
                if (annotation.windowMs() != 0) {
                    throw new IllegalArgumentException(
                            "period = '" + annotation.period() + "' gives the window; leave out windowMs");
                }
                if (annotation.algorithm() == io.github.ratelimit.annotation.Algorithm.TOKEN_BUCKET) {
                    throw new IllegalArgumentException("period = '" + annotation.period()
                            + "' counts a fixed number per period; leave out algorithm = TOKEN_BUCKET");
                }
                if (annotation.countOn() == CountOn.FAILURE
                        || !annotation.charge().isBlank()) {
                    throw new IllegalArgumentException("period = '" + annotation.period()
                            + "' with countOn = FAILURE or charge; a calendar quota is taken before the call");
                }
                limit = RateLimit.of(name, io.github.ratelimit.annotation.Algorithm.FIXED_WINDOW, annotation.limit(), 1)
                        .inCalendar(period);
            }
            if (annotation.penaltyMs() < 0) {
                throw new IllegalArgumentException(Messages.atLeast("penaltyMs", 0, annotation.penaltyMs()));
            }
            if (annotation.lease() != 0
                    && (annotation.countOn() == CountOn.FAILURE
                            || !annotation.charge().isBlank()
                            || annotation.chargeFailures())) {
                throw new IllegalArgumentException("lease = " + annotation.lease()
                        + " with countOn = FAILURE or a charge; a leased limit is taken from its lease before the"
                        + " call, never after it");
            }
            return limit.withPenalty(Duration.ofMillis(annotation.penaltyMs()))
                    .withShare(annotation.share())
                    .withLease(annotation.lease());
        } catch (IllegalArgumentException e) {
            throw expressions.invalid(String.valueOf(e.getMessage()));
        }
    }

    /** A plan group's limits: the group must exist; the limits, the name and the algorithm are the plans'. */
    private MethodLimits.CompiledLimit compilePlans(RateLimited annotation, MethodExpressions expressions) {
        String group = annotation.plans();
        if (annotation.limit() != 0 || annotation.windowMs() != 0) {
            throw expressions.invalid("plans = '" + group + "' gives the limits; leave out limit and windowMs");
        }
        if (annotation.lease() != 0) {
            throw expressions.invalid("plans = '" + group + "' with lease; a plan's quota cannot be leased (its counts"
                    + " follow the caller's plan); leave out lease");
        }
        if (!annotation.name().isEmpty()) {
            throw expressions.invalid("plans = '" + group + "' names the limit; leave out name");
        }
        if (annotation.key().length != 1) {
            throw expressions.invalid(
                    "plans = '" + group + "' needs exactly one key (the customer), but has " + annotation.key().length);
        }
        Plans all = this.plans.get();
        Plans.Group plans;
        try {
            plans = all.group(group);
        } catch (IllegalArgumentException e) {
            throw expressions.invalid(String.valueOf(e.getMessage()));
        }
        String costText = annotation.cost().trim();
        List<KeyExpression> customer =
                List.of(KeyExpression.of("Rate limit", annotation.key()[0], expressions, keys.get()));
        List<RateLimit> every =
                plans.plans().values().stream().flatMap(List::stream).toList();
        return new MethodLimits.CompiledLimit(
                definition(expressions, every, group, customer, annotation),
                java.util.Objects.requireNonNull(plans.plans().get(plans.defaultPlan()))
                        .get(0),
                customer,
                costText.equals("1") ? null : expressions.parse(costText, "cost"),
                costText,
                annotation.plan().isEmpty() ? null : expressions.parse(annotation.plan(), "plan"),
                charge(annotation, expressions.method(), expressions),
                all);
    }

    /** The charge after the call, checked: null when the annotation has none. */
    private static MethodLimits.@Nullable Charge charge(
            RateLimited annotation, Method method, MethodExpressions expressions) {
        String text = annotation.charge().trim();
        if (text.isEmpty()) {
            if (annotation.chargeFailures()) {
                throw expressions.invalid("chargeFailures is set without charge");
            }
            return null;
        }
        if (!annotation.cost().trim().equals("1")) {
            throw expressions.invalid("charge '" + text + "' and cost '" + annotation.cost()
                    + "' are both given; a charged call takes what charge gives after it ran, leave out cost");
        }
        if (annotation.countOn() == CountOn.FAILURE) {
            throw expressions.invalid("charge '" + text
                    + "' with countOn = FAILURE; a charged limit counts what calls used, leave out countOn");
        }
        if (reactor.core.publisher.Flux.class.isAssignableFrom(method.getReturnType())) {
            throw expressions.invalid(
                    "charge '" + text + "' on a method returning Flux; charge needs one result (a plain"
                            + " value, Mono or CompletionStage)");
        }
        return new MethodLimits.Charge(
                expressions.parse(text, "charge", Set.of("result")), text, annotation.chargeFailures());
    }

    /** The annotation's side of its definition: everything but how its keys and cost are read. */
    private static LimitDefinition definition(
            MethodExpressions expressions,
            List<RateLimit> limits,
            @Nullable String planGroup,
            List<KeyExpression> keys,
            RateLimited annotation) {
        return new LimitDefinition(
                expressions.source(),
                limits,
                planGroup,
                keys.stream().map(KeyExpression::text).toList(),
                annotation.shadow(),
                annotation.failureMode(),
                annotation.retryAdvice(),
                annotation.countOn(),
                false,
                Duration.ofMillis(annotation.waitMs()),
                !annotation.charge().isBlank());
    }

    private static @Nullable Object constantValue(Expression expression) {
        try {
            if (expression instanceof SpelExpression spel
                    && spel.getAST().getChildCount() == 0
                    && spel.getAST() instanceof org.springframework.expression.spel.ast.Literal) {
                return expression.getValue();
            }
        } catch (RuntimeException e) {
            return null;
        }
        return null;
    }

    private void register(List<MethodLimits.CompiledLimit> limits, MethodExpressions expressions) {
        String source = expressions.source();
        Map<String, Set<String>> limitsByName = new java.util.LinkedHashMap<>();
        Map<String, Set<String>> keysByName = new java.util.LinkedHashMap<>();
        for (MethodLimits.CompiledLimit compiled : limits) {
            RateLimit limit = compiled.limit();
            if (limit.share() < 1
                    && limits.stream()
                                    .filter(l -> l.limit().name().equals(limit.name()))
                                    .count()
                            > 1) {
                throw expressions.invalid(
                        "limit '" + limit.name() + "' has share = " + limit.share() + " and several"
                                + " windows; a share of a budget counts in its name's only window, give the others another name");
            }
            limitsByName
                    .computeIfAbsent(limit.name(), n -> new TreeSet<>())
                    .add(
                            compiled.definition().planGroup() != null
                                    ? "the plans of " + compiled.definition().planGroup()
                                    : limit.limit() + " per "
                                            + (limit.period() != null
                                                    ? limit.period().toString()
                                                    : limit.windowMs() + " ms " + limit.algorithm())
                                            + (limit.penalty().isZero() ? "" : ", penalty " + limit.penalty()));
            Set<String> keys = keysByName.computeIfAbsent(limit.name(), n -> new TreeSet<>());
            compiled.keys().forEach(k -> keys.add(k.text()));
        }
        for (Map.Entry<String, Set<String>> entry : limitsByName.entrySet()) {
            NamedDefinition mine = new NamedDefinition(
                    source, entry.getValue(), java.util.Objects.requireNonNull(keysByName.get(entry.getKey())));
            NamedDefinition existing = names.putIfAbsent(entry.getKey(), mine);
            if (existing != null && !existing.source().equals(source)) {
                if (!existing.limits().equals(mine.limits())) {
                    throw expressions.invalid("limit name '" + entry.getKey() + "' is declared as "
                            + mine.limits() + " here but as " + existing.limits() + " on " + existing.source()
                            + "; methods sharing a name must declare the same limits");
                }
                if (!existing.keys().equals(mine.keys())) {
                    throw expressions.invalid("limit name '" + entry.getKey() + "' uses keys "
                            + mine.keys() + " here but " + existing.keys() + " on " + existing.source()
                            + "; methods sharing a name must use the same key expressions");
                }
            }
        }
    }

    static String defaultName(Method method) {
        String name = method.getDeclaringClass().getSimpleName() + "." + method.getName();
        return name.replaceAll("[^A-Za-z0-9._:/-]", "_");
    }
}
