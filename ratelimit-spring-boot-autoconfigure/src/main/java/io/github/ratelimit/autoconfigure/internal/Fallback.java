package io.github.ratelimit.autoconfigure.internal;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.core.RateLimitExceededException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * A {@code @RateLimited(fallback = ...)} method, found and checked at startup: a method of the same class with the
 * limited method's parameters, optionally followed by the refusal, and a return type the limited method can return.
 */
public record Fallback(Method method, boolean withRefusal) {

    /** The fallback the annotations name, or null; an invalid one fails with a message naming both methods. */
    public static Fallback of(Method limited, Set<RateLimited> annotations, MethodExpressions expressions) {
        Set<String> names = new LinkedHashSet<>();
        annotations.forEach(a -> {
            if (!a.fallback().isBlank()) {
                names.add(a.fallback().trim());
            }
        });
        if (names.isEmpty()) {
            return null;
        }
        if (names.size() > 1) {
            throw expressions.invalid("names several fallbacks " + names + "; a method has one");
        }
        String name = names.iterator().next();
        Class<?> type = limited.getDeclaringClass();
        Class<?>[] parameters = limited.getParameterTypes();
        Class<?>[] withRefusal = Arrays.copyOf(parameters, parameters.length + 1);
        withRefusal[parameters.length] = RateLimitExceededException.class;
        Method found = ReflectionUtils.findMethod(type, name, parameters);
        boolean refusal = false;
        if (found == null) {
            found = ReflectionUtils.findMethod(type, name, withRefusal);
            refusal = true;
        }
        String wanted = type.getSimpleName() + "." + name + "(" + simpleNames(parameters) + ") or " + name + "("
                + simpleNames(withRefusal) + ")";
        if (found == null) {
            throw expressions.invalid("fallback '" + name + "' must be a method " + wanted + ", but there is none");
        }
        Class<?> returned = ClassUtils.resolvePrimitiveIfNecessary(limited.getReturnType());
        Class<?> given = ClassUtils.resolvePrimitiveIfNecessary(found.getReturnType());
        if (!returned.isAssignableFrom(given)) {
            throw expressions.invalid("fallback " + type.getSimpleName() + "." + name + " returns "
                    + found.getReturnType().getSimpleName() + ", which " + limited.getName()
                    + " cannot return (it returns "
                    + limited.getReturnType().getSimpleName() + ")");
        }
        ReflectionUtils.makeAccessible(found);
        return new Fallback(found, refusal);
    }

    /** Calls the fallback on the target with the call's arguments (and the refusal); its exceptions as they are. */
    public Object invoke(Object target, Object[] arguments, RateLimitExceededException refusal) throws Throwable {
        Object[] args = arguments;
        if (withRefusal) {
            args = Arrays.copyOf(arguments, arguments.length + 1);
            args[arguments.length] = refusal;
        }
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static String simpleNames(Class<?>[] types) {
        return Arrays.stream(types).map(Class::getSimpleName).collect(Collectors.joining(", "));
    }
}
