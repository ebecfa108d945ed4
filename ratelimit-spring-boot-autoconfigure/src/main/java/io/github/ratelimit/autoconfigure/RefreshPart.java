package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.definition.RefreshableLimits;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.validation.BeanPropertyBindingResult;
import org.springframework.validation.FieldError;
import org.springframework.validation.Validator;

/**
 * One part of what a refresh of the properties rebuilds without a restart (Spring Cloud's {@code
 * EnvironmentChangeEvent}): limits that take rules, and where in the refreshed settings their rules are. The module
 * that owns the limits declares a bean of it beside them: the path-rule filters and the outbound clients here, the
 * gateway routes, gRPC and GraphQL in their modules, the customers' plans with the plans. Every part is refreshed the
 * same way, through {@link RefreshableLimits}.
 *
 * @param limits the limits in force, which compile the refreshed rules
 * @param rules the part's rules, read from the refreshed settings
 * @param <R> the rules, as the limits take them
 */
public record RefreshPart<R>(RefreshableLimits<R> limits, Function<Settings, R> rules) {

    /** Compiles this part of a refresh, changing nothing in force; what it returns puts it in force. */
    public Runnable prepare(Settings settings, Plans plans) {
        return limits.prepare(rules.apply(settings), plans);
    }

    /**
     * The settings as the environment has them after a refresh: each properties class bound afresh at the prefix of
     * its {@link ConfigurationProperties}, and checked as at startup, once per refresh.
     */
    public static final class Settings {

        private final Binder binder;
        private final Map<Class<?>, Object> bound = new HashMap<>();

        public Settings(Binder binder) {
            this.binder = binder;
        }

        /**
         * The refreshed settings of a properties class.
         *
         * @throws IllegalArgumentException naming every property whose value is not valid, with the value's fault
         */
        public synchronized <T> T get(Class<T> type) {
            return type.cast(bound.computeIfAbsent(type, this::bind));
        }

        private Object bind(Class<?> type) {
            ConfigurationProperties annotation =
                    AnnotatedElementUtils.findMergedAnnotation(type, ConfigurationProperties.class);
            if (annotation == null) {
                throw new IllegalArgumentException(type.getName() + " is not a @ConfigurationProperties class");
            }
            String prefix = annotation.prefix();
            Object refreshed = binder.bindOrCreate(prefix, type);
            if (refreshed instanceof Validator validator) {
                BeanPropertyBindingResult errors = new BeanPropertyBindingResult(refreshed, prefix);
                validator.validate(refreshed, errors);
                if (errors.hasErrors()) {
                    List<String> wrong = new ArrayList<>();
                    for (FieldError error : errors.getFieldErrors()) {
                        wrong.add(prefix + "." + error.getField() + ": " + error.getDefaultMessage());
                    }
                    errors.getGlobalErrors().forEach(error -> wrong.add(String.valueOf(error.getDefaultMessage())));
                    throw new IllegalArgumentException(String.join("; ", wrong));
                }
            }
            return refreshed;
        }
    }
}
