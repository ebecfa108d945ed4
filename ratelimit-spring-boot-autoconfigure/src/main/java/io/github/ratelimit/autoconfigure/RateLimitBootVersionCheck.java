package io.github.ratelimit.autoconfigure;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Fails the start at once, with a message saying so, when the application runs a Spring Boot older than 4 (the
 * starter is built on Boot 4's modules; on Boot 3 it would otherwise fail later with a class that cannot be found).
 * Uses only what Boot 3 has too.
 */
@AutoConfiguration(beforeName = "io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration")
public final class RateLimitBootVersionCheck {

    static final int REQUIRED_MAJOR = 4;

    @Bean
    static BeanFactoryPostProcessor rateLimitBootVersion() {
        return new Check(SpringBootVersion.getVersion());
    }

    /** The check for one Boot version (null when unknown: then it passes). */
    record Check(String bootVersion) implements BeanFactoryPostProcessor {

        @Override
        public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
            if (bootVersion == null) {
                return;
            }
            int dot = bootVersion.indexOf('.');
            String major = dot < 0 ? bootVersion : bootVersion.substring(0, dot);
            if (major.matches("\\d+") && Integer.parseInt(major) < REQUIRED_MAJOR) {
                throw new IllegalStateException("ratelimit-spring-boot-starter needs Spring Boot " + REQUIRED_MAJOR
                        + ".x (and Java 17 or later), but this application runs Spring Boot " + bootVersion
                        + "; upgrade Spring Boot, or remove the starter");
            }
        }
    }
}
