package io.github.ratelimit.spring.aot;

import io.github.ratelimit.spring.internal.AnnotatedMethods;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * At AOT processing, for each bean whose methods carry the starter's annotations: its methods, invocable by reflection
 * (a {@code @RateLimited(fallback = ...)} is found by name and called so), the types of their parameters and results
 * for binding (SpEL keys read {@code #order.customerId}, charges {@code #result.tokens}), and, for a bean with
 * interfaces, the JDK proxy its advice is applied through when an application proxies interfaces. A class-based proxy
 * needs nothing: Spring generates it at build time.
 */
final class AnnotatedBeansAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
        Class<?> type = ClassUtils.getUserClass(bean.getBeanClass());
        List<Method> annotated;
        try {
            annotated = annotatedMethods(type);
        } catch (LinkageError | TypeNotPresentException e) {
            // a bean whose methods name classes absent at build time (an optional dependency) carries none of ours
            return null;
        }
        if (annotated.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> register(generationContext.getRuntimeHints(), type, annotated);
    }

    /** The methods of the type that carry one of the starter's annotations, on them or on their class. */
    static List<Method> annotatedMethods(Class<?> type) {
        List<Method> annotated = new ArrayList<>();
        for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
            if (AnnotatedMethods.isRateLimited(method)
                    || AnnotatedMethods.isSingleUse(method)
                    || AnnotatedMethods.isLocked(method)
                    || AnnotatedMethods.isConcurrencyLimited(method)) {
                annotated.add(method);
            }
        }
        return annotated;
    }

    static void register(RuntimeHints hints, Class<?> type, List<Method> annotated) {
        // a fallback may be private: it is found among the declared methods and made accessible
        hints.reflection()
                .registerType(type, MemberCategory.INVOKE_PUBLIC_METHODS, MemberCategory.INVOKE_DECLARED_METHODS);
        BindingReflectionHintsRegistrar binding = new BindingReflectionHintsRegistrar();
        for (Method method : annotated) {
            List<Type> types = new ArrayList<>(Arrays.asList(method.getGenericParameterTypes()));
            types.add(method.getGenericReturnType());
            binding.registerReflectionHints(hints.reflection(), types.toArray(Type[]::new));
        }
        Class<?>[] interfaces = Arrays.stream(ClassUtils.getAllInterfacesForClass(type))
                .filter(i -> !i.getName().startsWith("java.") && !i.getName().startsWith("org.springframework."))
                .toArray(Class<?>[]::new);
        if (interfaces.length > 0) {
            hints.proxies().registerJdkProxy(AopProxyUtils.completeJdkProxyInterfaces(interfaces));
        }
    }
}
