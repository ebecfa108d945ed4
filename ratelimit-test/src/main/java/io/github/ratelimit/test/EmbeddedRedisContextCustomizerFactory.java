package io.github.ratelimit.test;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/** Points the context of an {@link EmbeddedRedis} test at the JVM's embedded redis-server. */
final class EmbeddedRedisContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(
            Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        return TestContextAnnotationUtils.hasAnnotation(testClass, EmbeddedRedis.class) ? new Customizer() : null;
    }

    /** All equal: every such context shares the server, so they may share a cached context too. */
    private static final class Customizer implements ContextCustomizer {

        @Override
        public void customizeContext(
                org.springframework.context.ConfigurableApplicationContext context,
                org.springframework.test.context.MergedContextConfiguration mergedConfig) {
            context.getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource(
                            "embeddedRedis",
                            Map.of(
                                    "spring.data.redis.url",
                                    EmbeddedRedisServer.url(),
                                    "ratelimit.redis.require-at-startup",
                                    "true")));
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Customizer;
        }

        @Override
        public int hashCode() {
            return Customizer.class.hashCode();
        }
    }
}
