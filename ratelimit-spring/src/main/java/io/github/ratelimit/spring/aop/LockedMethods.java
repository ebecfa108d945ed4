package io.github.ratelimit.spring.aop;

import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.internal.KeyExpression;
import io.github.ratelimit.spring.internal.MethodExpressions;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;

/** Compiles and caches the {@link Locked} declarations of methods. */
final class LockedMethods {

    /**
     * One compiled declaration; {@code key} is null for a lock named by its name alone; {@code handleParameter} is -1
     * when the method takes no LockHandle; {@code skipWhenBusy} when a busy lock skips the call instead of refusing it.
     */
    record LockedMethod(
            MethodExpressions expressions,
            String name,
            @Nullable KeyExpression key,
            LockOptions options,
            int handleParameter,
            boolean skipWhenBusy,
            boolean interruptOnLoss) {}

    private final Map<Method, LockedMethod> compiled = new ConcurrentHashMap<>();
    private final Supplier<KeyResolvers> keys;

    /** @param keys the kinds of key that {@code key} attributes may name, looked up when a method is checked */
    LockedMethods(Supplier<KeyResolvers> keys) {
        this.keys = keys;
    }

    LockedMethod get(Method method) {
        LockedMethod found = compiled.get(method);
        return found != null ? found : compiled.computeIfAbsent(method, this::compile);
    }

    private LockedMethod compile(Method method) {
        MethodExpressions expressions = new MethodExpressions(method, "Locked");
        Locked annotation = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
        if (annotation == null) {
            throw expressions.invalid("no @Locked annotation");
        }
        String name = annotation.name().isEmpty() ? RateLimitedMethods.defaultName(method) : annotation.name();
        if (!Messages.isName(name)) {
            throw expressions.invalid(Messages.badName("name", name));
        }
        if (annotation.leaseMs() < 1) {
            throw expressions.invalid(Messages.atLeast("leaseMs", 1, annotation.leaseMs()));
        }
        if (annotation.waitMs() < 0) {
            throw expressions.invalid(Messages.negative("waitMs", annotation.waitMs()));
        }
        if (annotation.maxLifetimeMs() < annotation.leaseMs()) {
            throw expressions.invalid(Messages.lifetimeBelowLease(annotation.leaseMs(), annotation.maxLifetimeMs()));
        }
        if (annotation.minHoldMs() < 0) {
            throw expressions.invalid(Messages.negative("minHoldMs", annotation.minHoldMs()));
        }
        if (annotation.minHoldMs() > annotation.maxLifetimeMs()) {
            throw expressions.invalid("minHoldMs must be at most maxLifetimeMs (" + annotation.maxLifetimeMs()
                    + "), but was " + annotation.minHoldMs());
        }
        boolean skip = annotation.whenBusy() == Locked.Busy.SKIP
                || (annotation.whenBusy() == Locked.Busy.AUTO && isScheduled(method));
        if (skip && method.getReturnType().isPrimitive() && method.getReturnType() != void.class) {
            throw expressions.invalid("a method that skips when its lock is busy returns nothing then, but it returns "
                    + method.getReturnType() + "; return void or an object, or set whenBusy = Busy.FAIL");
        }
        LockOptions options = new LockOptions(
                Duration.ofMillis(annotation.leaseMs()),
                Duration.ofMillis(annotation.waitMs()),
                Duration.ofMillis(annotation.maxLifetimeMs()),
                name,
                Duration.ofMillis(annotation.minHoldMs()));
        KeyExpression key =
                annotation.key().isBlank() ? null : KeyExpression.of("Lock", annotation.key(), expressions, keys.get());
        int parameter = expressions.parameterOfType(LockHandle.class);
        return new LockedMethod(expressions, name, key, options, parameter, skip, annotation.interruptOnLoss());
    }

    /** Whether a scheduler calls the method: Spring's {@code @Scheduled} (or {@code @Schedules}) on it. */
    static boolean isScheduled(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, Scheduled.class)
                || AnnotatedElementUtils.hasAnnotation(method, Schedules.class);
    }
}
