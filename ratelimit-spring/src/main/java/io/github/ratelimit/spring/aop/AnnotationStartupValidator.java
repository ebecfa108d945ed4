package io.github.ratelimit.spring.aop;

import io.github.ratelimit.spring.definition.InvalidDefinitionException;
import io.github.ratelimit.spring.internal.MethodExpressions;
import io.github.ratelimit.spring.internal.invocation.ReturnShape;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.Set;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.util.ClassUtils;

/**
 * Checks every {@code @RateLimited}, {@code @SingleUse} and {@code @Locked} method of every bean before the
 * application is ready, so that an invalid declaration (a limit below 1, SpEL that does not parse or names an
 * unknown parameter, a name declared two ways) fails the start, not a user's request.
 */
public final class AnnotationStartupValidator implements SmartInitializingSingleton {

    private final ConfigurableListableBeanFactory beanFactory;

    public AnnotationStartupValidator(ConfigurableListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Collection<ValidatingAdvisor> advisors = beanFactory
                .getBeansOfType(ValidatingAdvisor.class, false, false)
                .values();
        if (advisors.isEmpty()) {
            return;
        }
        for (String name : beanFactory.getBeanDefinitionNames()) {
            Class<?> type;
            try {
                type = beanFactory.getType(name, false);
            } catch (RuntimeException e) {
                continue; // a bean whose type cannot be determined without creating it is checked on first call
            }
            if (type == null) {
                continue;
            }
            Set<Method> methods = MethodIntrospector.selectMethods(
                            ClassUtils.getUserClass(type), (MethodIntrospector.MetadataLookup<Boolean>)
                                    method -> advisors.stream().anyMatch(a -> a.declares(method)) ? Boolean.TRUE : null)
                    .keySet();
            for (Method method : methods) {
                // its shape found now, on this thread: for a Kotlin Flow, that loads what converts it, which reads jars
                try {
                    ReturnShape.of(method);
                } catch (IllegalArgumentException unsupported) {
                    String annotation = advisors.stream()
                            .filter(a -> a.declares(method))
                            .map(ValidatingAdvisor::annotation)
                            .findFirst()
                            .orElse("RateLimited");
                    throw new InvalidDefinitionException(
                            annotation, MethodExpressions.describe(method), String.valueOf(unsupported.getMessage()));
                }
                for (ValidatingAdvisor advisor : advisors) {
                    if (advisor.declares(method)) {
                        advisor.validate(method);
                    }
                }
            }
        }
    }
}
