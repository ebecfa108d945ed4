package io.github.ratelimit.spring.definition;

import io.github.ratelimit.annotation.CountOn;
import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.KeyResolver;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.spring.definition.internal.RuleParts;
import io.github.ratelimit.spring.definition.internal.RuleSlots;
import io.github.ratelimit.spring.definition.internal.SpelVariables;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * A compiled filter rule: patterns parsed, limits checked, key source resolved, all once at startup. Only {@link
 * PathRules} holds them; the parts a client rule shares (limits, path patterns) are {@code internal.RuleParts}.
 */
final class FilterRule {

    static final int MAX_KEY_LENGTH = 256;
    private static final String KEY_KINDS =
            "must be ip, principal, client, header:<Name> or spel:<expression>, or name a KeyResolver bean";
    private static final Set<String> METHODS =
            Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE");
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final Set<String> SPEL_VARIABLES = Set.of("request", "ip", "principal", "client");

    final int index;
    final String name;
    final List<PathPattern> paths;
    final Set<String> methods;
    final List<RateLimit> limits;
    final String key;
    final FilterRuleSpec.MissingKey missingKey;
    final long cost;
    final int order;
    final boolean perPath;
    /** The rule's side of its definition: everything but how its key and cost are read from a request. */
    final LimitDefinition definition;
    /** The plan group whose limits apply, or null for the rule's own limits. */
    final @Nullable String planGroup;
    /** The rule's concurrency limit, one for the rule whoever calls, or null. */
    final RuleSlots.@Nullable Limit concurrency;

    private final @Nullable Expression planExpression;
    private final @Nullable String header;
    private final @Nullable Expression spel;
    private final KeyResolver resolver;

    private FilterRule(
            FilterRuleSpec spec, int index, String prefix, Plans plans, KeyResolvers keys, String defaultKey) {
        this.index = index;
        this.planGroup = spec.plans() == null || spec.plans().isBlank()
                ? null
                : spec.plans().trim();
        this.name = planGroup != null
                ? planGroup
                : spec.name() == null || spec.name().isBlank() ? "rule-" + index : spec.name();
        if (!Messages.isName(name)) {
            throw new InvalidFilterRuleException(prefix + ".name", Messages.badName(null, name));
        }
        if (spec.paths() == null || spec.paths().isEmpty()) {
            throw new InvalidFilterRuleException(prefix + ".paths", "must list at least one path pattern");
        }
        this.paths = RuleParts.patterns(spec.paths(), prefix + ".paths");
        Set<String> methodSet = new TreeSet<>();
        List<String> methodList = spec.methods() == null ? List.of() : spec.methods();
        for (int i = 0; i < methodList.size(); i++) {
            String method =
                    methodList.get(i) == null ? "" : methodList.get(i).trim().toUpperCase(Locale.ROOT);
            if (!METHODS.contains(method)) {
                throw new InvalidFilterRuleException(
                        prefix + ".methods[" + i + "]",
                        "must be one of " + new TreeSet<>(METHODS) + ", but was '" + methodList.get(i) + "'");
            }
            methodSet.add(method);
        }
        this.methods = Set.copyOf(methodSet);
        List<RateLimit> compiled = new ArrayList<>();
        if (planGroup != null) {
            if (spec.limits() != null && !spec.limits().isEmpty()) {
                throw new InvalidFilterRuleException(
                        prefix + ".limits", "must be left out: plans = '" + planGroup + "' gives the limits");
            }
            try {
                plans.group(planGroup).plans().values().forEach(compiled::addAll);
            } catch (IllegalArgumentException e) {
                throw new InvalidFilterRuleException(prefix + ".plans", e.getMessage());
            }
        } else if (spec.plan() != null && !spec.plan().isBlank()) {
            throw new InvalidFilterRuleException(prefix + ".plan", "is given without plans (the plan group)");
        } else if ((spec.limits() == null || spec.limits().isEmpty()) && spec.concurrency() == null) {
            throw new InvalidFilterRuleException(
                    prefix + ".limits", "must list at least one limit, unless the rule has a concurrency limit");
        }
        for (int i = 0;
                planGroup == null && spec.limits() != null && i < spec.limits().size();
                i++) {
            compiled.add(RuleParts.limit(spec.limits().get(i), name, prefix + ".limits[" + i + "]"));
        }
        this.limits = List.copyOf(compiled);
        this.concurrency = spec.concurrency() == null
                ? null
                : RuleSlots.Limit.compile(
                        spec.concurrency(),
                        name,
                        ClientIdentifier.of("path-rule", name),
                        spec.failureMode() == null ? FailureMode.DEFAULT : spec.failureMode(),
                        prefix);
        this.key = spec.key() == null || spec.key().isBlank()
                ? defaultKey
                : spec.key().trim();
        Expression expression = null;
        KeyResolver resolver;
        if (key.regionMatches(true, 0, "spel:", 0, 5)) {
            expression = parseSpel(key.substring(5), prefix + ".key");
            Expression spelKey = expression;
            resolver = caller -> {
                try {
                    Object result =
                            spelKey.getValue(context(caller.request(), caller.principalName(), caller.clientAddress()));
                    return result == null ? null : result.toString();
                } catch (EvaluationException e) {
                    return null;
                }
            };
        } else if (!KeyResolvers.isKind(key)) {
            throw new InvalidFilterRuleException(prefix + ".key", KEY_KINDS + ", but was '" + key + "'");
        } else {
            try {
                resolver = keys.resolver(key);
            } catch (IllegalArgumentException e) {
                throw new InvalidFilterRuleException(
                        prefix + ".key",
                        key.regionMatches(true, 0, "header:", 0, 7)
                                ? e.getMessage()
                                : KEY_KINDS + ", but was '" + key + "' (" + e.getMessage() + ")");
            }
        }
        this.header =
                key.regionMatches(true, 0, "header:", 0, 7) ? key.substring(7).trim() : null;
        this.spel = expression;
        this.resolver = resolver;
        this.planExpression =
                planGroup == null || spec.plan() == null || spec.plan().isBlank()
                        ? null
                        : parseSpel(spec.plan(), prefix + ".plan");
        this.missingKey = spec.missingKey() == null ? FilterRuleSpec.MissingKey.REJECT : spec.missingKey();
        long maxCost = compiled.stream().mapToLong(RateLimit::limit).min().orElse(1);
        if (spec.cost() < 0 || spec.cost() > maxCost) {
            throw new InvalidFilterRuleException(
                    prefix + ".cost",
                    "must be between 0 and the smallest limit " + maxCost + ", but was " + spec.cost());
        }
        this.cost = spec.cost();
        this.order = spec.order();
        this.perPath = spec.perPath();
        this.definition = new LimitDefinition(
                prefix + " " + paths,
                limits,
                planGroup,
                keyKinds(),
                spec.shadow(),
                spec.failureMode(),
                spec.retryAdvice(),
                spec.countOn(),
                perPath,
                checkedWait(spec.maxWait(), prefix),
                false);
    }

    private static Duration checkedWait(Duration maxWait, String prefix) {
        if (maxWait != null && maxWait.isNegative()) {
            throw new InvalidFilterRuleException(prefix + ".wait", "must not be negative, but was " + maxWait);
        }
        return maxWait;
    }

    /** A SpEL expression over the rule variables, or an error naming the property. */
    private static Expression parseSpel(String text, String property) {
        Expression expression;
        try {
            expression = PARSER.parseExpression(text);
        } catch (ParseException e) {
            throw new InvalidFilterRuleException(property, "is not a valid SpEL expression: " + e.getSimpleMessage());
        }
        String unknown = SpelVariables.firstUnknown(expression, SPEL_VARIABLES);
        if (unknown != null) {
            throw new InvalidFilterRuleException(
                    property, "names #" + unknown + ", which is not one of " + new TreeSet<>(SPEL_VARIABLES));
        }
        return expression;
    }

    private static StandardEvaluationContext context(
            @Nullable Object request, @Nullable String principal, @Nullable String clientAddress) {
        StandardEvaluationContext context = new StandardEvaluationContext();
        context.setVariable("request", request);
        context.setVariable("ip", clientAddress);
        context.setVariable("principal", principal);
        context.setVariable("client", ClientIdentifier.clientValue(principal, clientAddress));
        return context;
    }

    /** What evaluates the rule's plan expression for one request, or null when the rule has none. */
    @Nullable
    Supplier<Object> plan(CallerContext caller) {
        return planExpression == null
                ? null
                : () -> planExpression.getValue(
                        context(caller.request(), caller.principalName(), caller.clientAddress()));
    }

    static FilterRule compile(FilterRuleSpec spec, int index, Plans plans, KeyResolvers keys) {
        return new FilterRule(spec, index, "ratelimit.filter.rules[" + index + "]", plans, keys, "client");
    }

    /** A rule of another property, which its errors name ({@code prefix}, such as {@code ratelimit.grpc.rules[0]}). */
    static FilterRule compile(FilterRuleSpec spec, int index, String prefix, Plans plans, KeyResolvers keys) {
        return new FilterRule(spec, index, prefix, plans, keys, "client");
    }

    /**
     * A limit named in properties and applied where a route names it ({@code prefix} is its property, such as
     * {@code ratelimit.gateway.limits.per-client}): compiled as a rule for every path of the route. A route's
     * answer never passes the limiter, so such a limit cannot count failures only.
     *
     * @param defaultKey the key of a limit that names none
     */
    static FilterRule named(
            FilterRuleSpec spec, String name, String prefix, Plans plans, KeyResolvers keys, String defaultKey) {
        if (spec.paths() != null && !spec.paths().isEmpty()) {
            throw new InvalidFilterRuleException(
                    prefix + ".paths", "must be left out: the routes that name '" + name + "' choose the paths");
        }
        if (spec.concurrency() != null) {
            throw new InvalidFilterRuleException(
                    prefix + ".concurrency",
                    "is not taken on a route yet; bound the requests in flight with a path rule"
                            + " (ratelimit.filter.rules) in front of the route");
        }
        if (spec.countOn() == CountOn.FAILURE) {
            throw new InvalidFilterRuleException(
                    prefix + ".count-on",
                    "cannot be failure on a route (the limiter never sees the route's answer); count failures with a"
                            + " path rule (ratelimit.filter.rules) in front of the route");
        }
        FilterRuleSpec named = new FilterRuleSpec(
                name,
                List.of("/**"),
                spec.methods(),
                spec.limits(),
                spec.key(),
                spec.missingKey(),
                spec.cost(),
                spec.order(),
                spec.shadow(),
                spec.perPath(),
                spec.failureMode(),
                spec.retryAdvice(),
                spec.plans(),
                spec.plan(),
                spec.countOn(),
                spec.maxWait());
        return new FilterRule(named, 0, prefix, plans, keys, defaultKey);
    }

    /** Whether the rule matches a request of this HTTP method (null for a call of another protocol) and path. */
    boolean matches(@Nullable String method, PathContainer path) {
        if (!appliesTo(method)) {
            return false;
        }
        for (PathPattern pattern : paths) {
            if (pattern.matches(path)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the rule applies to requests of this HTTP method (all, when it names none); a call without one (another
     * protocol's) only under a rule that names none.
     */
    boolean appliesTo(@Nullable String method) {
        return methods.isEmpty() || (method != null && methods.contains(method));
    }

    /**
     * The kinds of identifier this rule counts, as the operator endpoint addresses them: its key kind (a header name
     * lower-cased), and {@code ip} too when a missing key is counted by IP.
     */
    List<String> keyKinds() {
        String kind = spel != null ? key : KeyResolvers.kindName(key);
        return missingKey == FilterRuleSpec.MissingKey.IP && !kind.equals("ip") ? List.of(kind, "ip") : List.of(kind);
    }

    /** The identifier for this request, or null when the key is absent (blank, over-long, no principal). */
    @Nullable
    ClientIdentifier identifier(CallerContext caller) {
        String value = resolver.resolve(caller);
        if (value == null || value.isBlank() || value.length() > MAX_KEY_LENGTH) {
            return null;
        }
        return ClientIdentifier.of(spel != null ? key : KeyResolvers.kindName(key), value);
    }

    /** What the missing key is, for the 400 problem; never the value. */
    String keyDescription() {
        if (header != null) {
            return "the " + header + " header (at most " + MAX_KEY_LENGTH + " characters)";
        }
        if (key.toLowerCase(Locale.ROOT).equals("principal")) {
            return "an authenticated principal";
        }
        return "the key of rule '" + name + "'"; // never the expression
    }
}
