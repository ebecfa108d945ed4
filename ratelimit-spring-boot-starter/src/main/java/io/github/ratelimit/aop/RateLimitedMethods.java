package io.github.ratelimit.aop;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.RateLimits;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitDefinitionException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Compiles and caches the {@link RateLimited} declarations of methods, and checks that every method sharing
 * a limit name declares the same limits and keys.
 */
final class RateLimitedMethods {

    static final Set<String> BUILT_IN_VARIABLES = Set.of("request", "principal", "ip", "client", "method", "args");

    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final Map<Method, MethodLimits> compiled = new ConcurrentHashMap<>();
    private final Map<String, NamedDefinition> names = new ConcurrentHashMap<>();

    private record NamedDefinition(String source, Set<String> limits, Set<String> keys) {}

    static boolean isRateLimited(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, RateLimited.class)
                || AnnotatedElementUtils.hasAnnotation(method, RateLimits.class);
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
        String source = describe(method);
        Set<RateLimited> annotations =
                AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimited.class, RateLimits.class);
        if (annotations.isEmpty()) {
            throw new RateLimitDefinitionException(source, "no @RateLimited annotation");
        }
        String[] parameterNames = new DefaultParameterNameDiscoverer().getParameterNames(method);
        Set<String> variables = new HashSet<>(BUILT_IN_VARIABLES);
        for (int i = 0; i < method.getParameterCount(); i++) {
            variables.add("p" + i);
            variables.add("a" + i);
            if (parameterNames != null) {
                variables.add(parameterNames[i]);
            }
        }
        List<MethodLimits.CompiledLimit> limits = new ArrayList<>();
        for (RateLimited annotation : annotations) {
            limits.add(compile(annotation, method, source, variables));
        }
        register(limits, source);
        return new MethodLimits(method, source, List.copyOf(limits));
    }

    private MethodLimits.CompiledLimit compile(
            RateLimited annotation, Method method, String source, Set<String> variables) {
        String name = annotation.name().isEmpty() ? defaultName(method) : annotation.name();
        RateLimit limit;
        try {
            limit = RateLimit.of(name, annotation.algorithm(), annotation.limit(), annotation.windowMs());
        } catch (IllegalArgumentException e) {
            throw new RateLimitDefinitionException(source, e.getMessage());
        }
        if (annotation.key().length == 0) {
            throw new RateLimitDefinitionException(source, "key must name at least one expression");
        }
        List<KeyExpression> keys = new ArrayList<>();
        for (String text : annotation.key()) {
            keys.add(new KeyExpression(text, parse(text, "key", source, variables)));
        }
        String costText = annotation.cost().trim();
        Expression cost = null;
        if (!costText.equals("1")) {
            cost = parse(costText, "cost", source, variables);
            Object constant = constantValue(cost);
            if (constant instanceof Number number
                    && (number.longValue() < 0 || number.longValue() > annotation.limit())) {
                throw new RateLimitDefinitionException(
                        source, "cost " + number + " is outside 0.." + annotation.limit() + " (the limit)");
            }
        }
        return new MethodLimits.CompiledLimit(limit, List.copyOf(keys), cost, costText);
    }

    private Expression parse(String text, String attribute, String source, Set<String> variables) {
        if (text == null || text.isBlank()) {
            throw new RateLimitDefinitionException(source, attribute + " must not be empty");
        }
        Expression expression;
        try {
            expression = parser.parseExpression(text);
        } catch (ParseException e) {
            throw new RateLimitDefinitionException(
                    source, attribute + " '" + text + "' is not a valid SpEL expression: " + e.getSimpleMessage());
        }
        if (expression instanceof SpelExpression spel) {
            checkVariables(spel.getAST(), text, attribute, source, variables);
        }
        return expression;
    }

    private static void checkVariables(
            SpelNode node, String text, String attribute, String source, Set<String> variables) {
        if (node instanceof VariableReference || node instanceof FunctionReference) {
            String name = node.toStringAST().substring(1);
            int paren = name.indexOf('(');
            if (paren >= 0) {
                name = name.substring(0, paren);
            }
            if (!name.equals("this") && !name.equals("root") && !variables.contains(name)) {
                throw new RateLimitDefinitionException(
                        source,
                        attribute + " '" + text + "' names #" + name
                                + ", which is neither a parameter of the method nor one of "
                                + new TreeSet<>(BUILT_IN_VARIABLES)
                                + " (compile with -parameters to use parameter names)");
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            checkVariables(node.getChild(i), text, attribute, source, variables);
        }
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

    private void register(List<MethodLimits.CompiledLimit> limits, String source) {
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
                    throw new RateLimitDefinitionException(
                            source,
                            "limit name '" + entry.getKey() + "' is declared as "
                                    + mine.limits() + " here but as " + existing.limits() + " on " + existing.source()
                                    + "; methods sharing a name must declare the same limits");
                }
                if (!existing.keys().equals(mine.keys())) {
                    throw new RateLimitDefinitionException(
                            source,
                            "limit name '" + entry.getKey() + "' uses keys "
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

    static String describe(Method method) {
        StringBuilder out = new StringBuilder(method.getDeclaringClass().getName())
                .append('.')
                .append(method.getName())
                .append('(');
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            out.append(i == 0 ? "" : ", ").append(types[i].getSimpleName());
        }
        return out.append(')').toString();
    }
}
