package io.github.ratelimit.aop;

import java.lang.reflect.Method;
import java.util.Map;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.util.ClassUtils;

/**
 * Checks every {@code @RateLimited} method of every bean before the application is ready, so that an invalid
 * declaration (a limit below 1, SpEL that does not parse or names an unknown parameter, a name declared two
 * ways) fails the start, not a user's request.
 */
public final class RateLimitStartupValidator implements SmartInitializingSingleton {

    private final ConfigurableListableBeanFactory beanFactory;
    private final RateLimitAdvisor advisor;

    public RateLimitStartupValidator(ConfigurableListableBeanFactory beanFactory, RateLimitAdvisor advisor) {
        this.beanFactory = beanFactory;
        this.advisor = advisor;
    }

    @Override
    public void afterSingletonsInstantiated() {
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
            Class<?> userType = ClassUtils.getUserClass(type);
            Map<Method, Boolean> annotated =
                    MethodIntrospector.selectMethods(userType, (MethodIntrospector.MetadataLookup<Boolean>)
                            method -> RateLimitedMethods.isRateLimited(method) ? Boolean.TRUE : null);
            annotated.keySet().forEach(advisor::validate);
        }
    }
}
