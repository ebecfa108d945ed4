package io.github.ratelimit.spring.internal;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.KeyResolver;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.spring.definition.KeyResolvers;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.ast.Literal;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * One key of an annotation: a parsed SpEL expression, or a {@linkplain KeyResolvers kind of key} ({@code ip},
 * {@code header:X-Api-Key}, a {@code KeyResolver} bean's name). Its identifiers are the expression text (or the kind)
 * plus each value, so a user id and an IP address that happen to be equal never share a bucket, and methods sharing a
 * limit name share buckets only for the same key.
 *
 * @param expression the SpEL expression, or null for a kind of key
 * @param resolver the kind's resolver, or null for an expression
 * @param kind what the identifiers are counted under: the expression text, or the kind's name
 */
public record KeyExpression(
        String what, String text, @Nullable Expression expression, @Nullable KeyResolver resolver, String kind) {

    /**
     * Bare words that were SpEL before key kinds existed, and stay SpEL: the root object's properties and the
     * literals.
     */
    private static final Set<String> SPEL_WORDS = Set.of("method", "args", "target", "true", "false", "null");

    /** The key an annotation's key text names: a kind of key if it names one, else a SpEL expression. */
    public static KeyExpression of(String what, String text, MethodExpressions expressions, KeyResolvers keys) {
        if (text != null && KeyResolvers.isKind(text) && !SPEL_WORDS.contains(text.trim())) {
            try {
                return new KeyExpression(what, text, null, keys.resolver(text), KeyResolvers.kindName(text));
            } catch (IllegalArgumentException e) {
                throw expressions.invalid("key '" + text + "' " + e.getMessage());
            }
        }
        return new KeyExpression(what, text, expressions.parse(text, "key"), null, text);
    }

    /**
     * The key's one value when it is a constant, a SpEL literal such as {@code 'orders-db'} (the same for every call);
     * null for a kind of key or any other expression.
     */
    public @Nullable String constant() {
        if (expression instanceof SpelExpression spel && spel.getAST() instanceof Literal literal) {
            Object value = literal.getLiteralValue().getValue();
            return value == null || value.toString().isBlank() ? null : value.toString();
        }
        return null;
    }

    /** The one identifier of a key that must produce exactly one value (a lock's key). */
    public ClientIdentifier identifier(EvaluationContext context, CallerContext caller, String source) {
        List<ClientIdentifier> all = identifiers(context, caller, source);
        if (all.size() != 1) {
            throw new RateLimitEvaluationException(what + " key '" + text + "' of " + source + " produced " + all.size()
                    + " values; exactly one is needed");
        }
        return all.get(0);
    }

    List<ClientIdentifier> identifiers(EvaluationContext context, CallerContext caller, String source) {
        if (resolver != null) {
            return List.of(identifier(resolver.resolve(caller), source));
        }
        Object value;
        try {
            value = java.util.Objects.requireNonNull(expression).getValue(context);
        } catch (EvaluationException | IllegalStateException e) {
            throw new RateLimitEvaluationException(
                    what + " key '" + text + "' of " + source + " failed: " + e.getMessage(), e);
        }
        List<ClientIdentifier> identifiers = new ArrayList<>(1);
        if (value instanceof Collection<?> collection) {
            for (Object element : collection) {
                identifiers.add(identifier(element, source));
            }
        } else if (value != null && value.getClass().isArray()) {
            for (int i = 0; i < Array.getLength(value); i++) {
                identifiers.add(identifier(Array.get(value, i), source));
            }
        } else {
            identifiers.add(identifier(value, source));
        }
        return identifiers;
    }

    private ClientIdentifier identifier(@Nullable Object value, String source) {
        if (value == null) {
            throw new RateLimitEvaluationException(what + " key '" + text + "' of " + source
                    + " evaluated to null; a missing key is an error, never a bucket shared by all callers"
                    + " (use \"" + text + " ?: {}\" to skip an optional identifier)");
        }
        String string;
        try {
            if (value.getClass().getMethod("toString").getDeclaringClass() == Object.class) {
                throw new RateLimitEvaluationException(what + " key '" + text + "' of " + source
                        + " evaluated to a " + value.getClass().getName()
                        + ", which has no toString() of its own; name one of its properties instead");
            }
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
        string = value.toString();
        if (string == null || string.isBlank()) {
            throw new RateLimitEvaluationException(what + " key '" + text + "' of " + source
                    + " evaluated to an empty value; a missing key is an error, never a shared bucket");
        }
        return ClientIdentifier.of(kind, string);
    }
}
