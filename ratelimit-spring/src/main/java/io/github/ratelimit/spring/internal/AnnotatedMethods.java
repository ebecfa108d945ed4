package io.github.ratelimit.spring.internal;

import io.github.ratelimit.annotation.ConcurrencyLimited;
import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.annotation.NotRateLimited;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.RateLimits;
import io.github.ratelimit.annotation.SingleUse;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/** Which methods the starter's annotations apply to: what the advisors intercept and what AOT processing registers. */
public final class AnnotatedMethods {

    private AnnotatedMethods() {}

    /**
     * Whether a method is limited: by its own (possibly composed) annotations, or by its class's when it is a public
     * instance method of that class and not exempted with {@link NotRateLimited}.
     */
    public static boolean isRateLimited(Method method) {
        if (AnnotatedElementUtils.hasAnnotation(method, NotRateLimited.class)) {
            return false;
        }
        return declaresRateLimits(method) || classLimits(method);
    }

    /** Whether a method carries {@code @RateLimited} itself (possibly composed or repeated), not only its class. */
    public static boolean declaresRateLimits(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, RateLimited.class)
                || AnnotatedElementUtils.hasAnnotation(method, RateLimits.class);
    }

    private static boolean classLimits(Method method) {
        Class<?> type = method.getDeclaringClass();
        int modifiers = method.getModifiers();
        return type != Object.class
                && !ReflectionUtils.isObjectMethod(method)
                && !ReflectionUtils.isEqualsMethod(method)
                && !ReflectionUtils.isHashCodeMethod(method)
                && !ReflectionUtils.isToStringMethod(method)
                && Modifier.isPublic(modifiers)
                && !Modifier.isStatic(modifiers)
                && !method.isSynthetic()
                && !method.isBridge()
                && (AnnotatedElementUtils.hasAnnotation(type, RateLimited.class)
                        || AnnotatedElementUtils.hasAnnotation(type, RateLimits.class));
    }

    /** Whether a method takes a single-use token ({@code @SingleUse}). */
    public static boolean isSingleUse(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, SingleUse.class);
    }

    /** Whether a method runs under a lock ({@code @Locked}). */
    public static boolean isLocked(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, Locked.class);
    }

    /** Whether a method takes a concurrency slot ({@code @ConcurrencyLimited}). */
    public static boolean isConcurrencyLimited(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, ConcurrencyLimited.class);
    }
}
