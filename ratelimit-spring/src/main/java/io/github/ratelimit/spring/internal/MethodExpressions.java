package io.github.ratelimit.spring.internal;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.spring.definition.InvalidDefinitionException;
import io.github.ratelimit.spring.definition.internal.SpelVariables;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * SpEL over one method's invocations: parsed once at startup, with every {@code #variable} checked against
 * the method's parameters and the built-in variables; evaluated per call in a fresh context.
 */
public final class MethodExpressions {

    static final Set<String> BUILT_IN_VARIABLES = Set.of("request", "principal", "ip", "client", "method", "args");

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

    private final Method method;
    private final String annotation;
    private final String source;
    private final Set<String> variables = new HashSet<>(BUILT_IN_VARIABLES);

    public MethodExpressions(Method method, String annotation) {
        this.method = method;
        this.annotation = annotation;
        this.source = describe(method);
        String[] parameterNames = NAMES.getParameterNames(method);
        // a Kotlin suspend fun's last parameter is its Continuation, which it does not declare: never a variable
        int declared = method.getParameterCount() - (KotlinDetector.isSuspendingFunction(method) ? 1 : 0);
        for (int i = 0; i < declared; i++) {
            variables.add("p" + i);
            variables.add("a" + i);
            if (parameterNames != null && i < parameterNames.length) {
                variables.add(parameterNames[i]);
            }
        }
    }

    /**
     * The index of the method's parameter of this type, which an interceptor fills in, or -1 if there is none;
     * more than one is a declaration error.
     */
    public int parameterOfType(Class<?> type) {
        int found = -1;
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (types[i] == type) {
                if (found >= 0) {
                    throw invalid("at most one parameter may be a " + type.getSimpleName());
                }
                found = i;
            }
        }
        return found;
    }

    public Method method() {
        return method;
    }

    /** The method as messages name it: {@code com.example.Service.call(String, int)}. */
    public String source() {
        return source;
    }

    public InvalidDefinitionException invalid(String problem) {
        return new InvalidDefinitionException(annotation, source, problem);
    }

    public Expression parse(String text, String attribute) {
        return parse(text, attribute, Set.of());
    }

    /** {@link #parse(String, String)} for an expression that may name further variables (such as {@code #result}). */
    public Expression parse(String text, String attribute, Set<String> more) {
        if (text == null || text.isBlank()) {
            throw invalid(attribute + " must not be empty");
        }
        Expression expression;
        try {
            expression = PARSER.parseExpression(text);
        } catch (ParseException e) {
            throw invalid(attribute + " '" + text + "' is not a valid SpEL expression: " + e.getSimpleMessage());
        }
        Set<String> known = variables;
        if (!more.isEmpty()) {
            known = new HashSet<>(variables);
            known.addAll(more);
        }
        String unknown = SpelVariables.firstUnknown(expression, known);
        if (unknown != null) {
            Set<String> builtIn = new TreeSet<>(BUILT_IN_VARIABLES);
            builtIn.addAll(more);
            throw invalid(attribute + " '" + text + "' names #" + unknown
                    + ", which is neither a parameter of the method nor one of "
                    + builtIn + " (compile with -parameters to use parameter names)");
        }
        return expression;
    }

    /** A context for one invocation: parameters, {@code #request}, {@code #principal}, {@code #ip}, {@code #client}. */
    public EvaluationContext context(@Nullable Object target, Object[] args, CallerContext caller) {
        MethodBasedEvaluationContext context =
                new MethodBasedEvaluationContext(new Root(method, args, target), method, args, NAMES);
        String principal = caller.principalName();
        String address = caller.clientAddress();
        context.setVariable("request", caller.request());
        context.setVariable("principal", principal);
        context.setVariable("ip", address);
        context.setVariable("client", ClientIdentifier.clientValue(principal, address));
        context.setVariable("method", method);
        context.setVariable("args", args);
        return context;
    }

    public static String describe(Method method) {
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

    /** The SpEL root object: {@code method}, {@code args} and {@code target} are reachable without '#'. */
    record Root(Method method, Object[] args, @Nullable Object target) {}
}
