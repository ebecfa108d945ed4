package io.github.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.UnboundElementsSourceFilter;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Fails the start on a {@code ratelimit.*} property that no settings class takes: a misspelt key, or the key of a
 * module that is not on the class path ({@code ratelimit.grpc.rules} without {@code ratelimit-grpc}), with Boot's own
 * report of the unbound property and where it was set. Each module owns its settings ({@code ratelimit.grpc} is
 * {@code RateLimitGrpcProperties}, in {@code ratelimit-grpc}), so no one class can bind {@code ratelimit.*} strictly;
 * this check binds every settings class under {@code ratelimit} registered in the context through one handler, the
 * narrowest prefixes first and {@code ratelimit} itself last, so that at the end only what none of them took is left.
 * Runs before any bean is made.
 */
final class UnknownSettingsCheck implements BeanFactoryPostProcessor, EnvironmentAware {

    private static final String ROOT = "ratelimit";

    private @Nullable Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beans) {
        if (environment == null) {
            return;
        }
        List<Settings> settings = new ArrayList<>();
        for (String name : beans.getBeanDefinitionNames()) {
            Settings found = settingsOf(beans.getBeanDefinition(name), beans.getBeanClassLoader());
            if (found != null && settings.stream().noneMatch(s -> s.type() == found.type())) {
                settings.add(found);
            }
        }
        if (settings.stream().noneMatch(s -> s.prefix().equals(ROOT))) {
            return; // not this library's context
        }
        settings.sort(
                Comparator.comparingInt((Settings s) -> s.prefix().length()).reversed());
        Binder binder = Binder.get(environment);
        NoUnboundElementsBindHandler strict = new NoUnboundElementsBindHandler(
                org.springframework.boot.context.properties.bind.BindHandler.DEFAULT,
                new UnboundElementsSourceFilter());
        for (Settings one : settings) {
            binder.bind(one.prefix(), Bindable.of(one.type()), strict);
        }
    }

    /** A settings class of this library's tree, as a bean definition of {@code @EnableConfigurationProperties}. */
    private static @Nullable Settings settingsOf(BeanDefinition definition, @Nullable ClassLoader loader) {
        String className = definition.getBeanClassName();
        if (className == null || definition.getFactoryMethodName() != null) {
            return null;
        }
        Class<?> type;
        try {
            type = ClassUtils.forName(className, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
        ConfigurationProperties annotation =
                AnnotatedElementUtils.findMergedAnnotation(type, ConfigurationProperties.class);
        if (annotation == null) {
            return null;
        }
        String prefix = annotation.prefix();
        return prefix.equals(ROOT) || prefix.startsWith(ROOT + ".") ? new Settings(prefix, type) : null;
    }

    private record Settings(String prefix, Class<?> type) {}
}
