package io.github.ratelimit.aop;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.RateLimits;
import io.github.ratelimit.core.RateLimit;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * Compiles and caches the {@link RateLimited} declarations of methods, and checks that every method sharing
 * a limit name declares the same limits and keys.
 */
final class RateLimitedMethods {

    private final Map<Method, MethodLimits> compiled = new ConcurrentHashMap<>();
    private final Map<String, NamedDefinition> names = new ConcurrentHashMap<>();

    private record NamedDefinition(String source, Set<String> limits, Set<String> keys) {}

    static boolean isRateLimited(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, RateLimited.class)
                || AnnotatedElementUtils.hasAnnotation(method, RateLimits.class);
    }

    /** Every limit compiled so far (all annotated bean methods, once the startup check has run). */
    List<io.github.ratelimit.core.DeclaredLimit> declared() {
        List<io.github.ratelimit.core.DeclaredLimit> all = new ArrayList<>();
        for (MethodLimits method : compiled.values()) {
            for (MethodLimits.CompiledLimit limit : method.limits()) {
                all.add(new io.github.ratelimit.core.DeclaredLimit(
                        method.expressions().source(),
                        limit.limit(),
                        limit.keys().stream().map(KeyExpression::text).toList(),
                        limit.shadow(),
                        limit.failClosed()));
            }
        }
        all.sort(java.util.Comparator.comparing(io.github.ratelimit.core.DeclaredLimit::source));
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
        Set<RateLimited> annotations =
                AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimited.class, RateLimits.class);
        if (annotations.isEmpty()) {
            throw expressions.invalid("no @RateLimited annotation");
        }
        List<MethodLimits.CompiledLimit> limits = new ArrayList<>();
        for (RateLimited annotation : annotations) {
            limits.add(compile(annotation, method, expressions));
        }
        register(limits, expressions);
        return new MethodLimits(expressions, List.copyOf(limits));
    }

    private MethodLimits.CompiledLimit compile(RateLimited annotation, Method method, MethodExpressions expressions) {
        String name = annotation.name().isEmpty() ? defaultName(method) : annotation.name();
        RateLimit limit;
        try {
            limit = RateLimit.of(name, annotation.algorithm(), annotation.limit(), annotation.windowMs());
        } catch (IllegalArgumentException e) {
            throw expressions.invalid(e.getMessage());
        }
        if (annotation.key().length == 0) {
            throw expressions.invalid("key must name at least one expression");
        }
        List<KeyExpression> keys = new ArrayList<>();
        for (String text : annotation.key()) {
            keys.add(new KeyExpression("Rate limit", text, expressions.parse(text, "key")));
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
                limit,
                List.copyOf(keys),
                cost,
                costText,
                annotation.shadow(),
                annotation.failClosed(),
                annotation.retryAdvice());
    }

    private static Object constantValue(Expression expression) {
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
            limitsByName
                    .computeIfAbsent(limit.name(), n -> new TreeSet<>())
                    .add(limit.limit() + " per " + limit.windowMs() + " ms " + limit.algorithm());
            Set<String> keys = keysByName.computeIfAbsent(limit.name(), n -> new TreeSet<>());
            compiled.keys().forEach(k -> keys.add(k.text()));
        }
        for (Map.Entry<String, Set<String>> entry : limitsByName.entrySet()) {
            NamedDefinition mine = new NamedDefinition(source, entry.getValue(), keysByName.get(entry.getKey()));
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
