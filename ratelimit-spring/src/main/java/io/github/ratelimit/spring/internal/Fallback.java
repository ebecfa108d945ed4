package io.github.ratelimit.spring.internal;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.core.RateLimitExceededException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.core.CoroutinesUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * A {@code @RateLimited(fallback = ...)} method, found and checked at startup: a method of the same class with the
 * limited method's parameters, optionally followed by the refusal, and a return type the limited method can return. The
 * fallback of a Kotlin {@code suspend fun} is a {@code suspend fun} too (the refusal before its continuation), called
 * as a publisher.
 */
public record Fallback(Method method, boolean withRefusal, boolean suspending) {

    /** The fallback the annotations name, or null; an invalid one fails with a message naming both methods. */
    public static @Nullable Fallback of(Method limited, Set<RateLimited> annotations, MethodExpressions expressions) {
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
        boolean suspending = KotlinDetector.isSuspendingFunction(limited);
        Class<?>[] all = limited.getParameterTypes();
        // a suspend fun's last parameter is its continuation: the refusal goes before it
        int declared = suspending ? all.length - 1 : all.length;
        Class<?>[] parameters = all;
        Class<?>[] withRefusal = new Class<?>[all.length + 1];
        System.arraycopy(all, 0, withRefusal, 0, declared);
        withRefusal[declared] = RateLimitExceededException.class;
        System.arraycopy(all, declared, withRefusal, declared + 1, all.length - declared);
        Method found = ReflectionUtils.findMethod(type, name, parameters);
        boolean refusal = false;
        if (found == null) {
            found = ReflectionUtils.findMethod(type, name, withRefusal);
            refusal = true;
        }
        String wanted = suspending
                ? "suspend fun " + name + "(" + simpleNames(Arrays.copyOf(all, declared)) + ") or suspend fun " + name
                        + "(" + simpleNames(Arrays.copyOf(withRefusal, declared + 1)) + ") of "
                        + type.getSimpleName()
                : type.getSimpleName() + "." + name + "(" + simpleNames(parameters) + ") or " + name + "("
                        + simpleNames(withRefusal) + ")";
        if (found == null) {
            throw expressions.invalid("fallback '" + name + "' must be a method " + wanted + ", but there is none");
        }
        Class<?> returned = ClassUtils.resolvePrimitiveIfNecessary(returnType(limited));
        Class<?> given = ClassUtils.resolvePrimitiveIfNecessary(returnType(found));
        if (!returned.isAssignableFrom(given)) {
            throw expressions.invalid("fallback " + type.getSimpleName() + "." + name + " returns "
                    + given.getSimpleName() + ", which " + limited.getName()
                    + " cannot return (it returns "
                    + returned.getSimpleName() + ")");
        }
        ReflectionUtils.makeAccessible(found);
        return new Fallback(found, refusal, suspending);
    }

    /** What a method returns, a suspend fun's declared type rather than {@code Object}. */
    private static Class<?> returnType(Method method) {
        return KotlinDetector.isSuspendingFunction(method)
                ? new MethodParameter(method, -1).getParameterType()
                : method.getReturnType();
    }

    /** Calls the fallback on the target with the call's arguments (and the refusal); its exceptions as they are. */
    public @Nullable Object invoke(@Nullable Object target, Object[] arguments, RateLimitExceededException refusal)
            throws Throwable {
        if (suspending) {
            // the call's continuation stays out: the fallback runs as a coroutine of its own, as a publisher
            Object[] args = Arrays.copyOf(arguments, arguments.length - (withRefusal ? 0 : 1));
            if (withRefusal) {
                args[arguments.length - 1] = refusal;
            }
            return CoroutinesUtils.invokeSuspendingFunction(method, java.util.Objects.requireNonNull(target), args);
        }
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
