package io.github.ratelimit.autoconfigure.observation;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.spring.observation.RateLimitObservationListener;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Observations of decisions, token consumptions and lock acquisitions ({@code ratelimit.decision},
 * {@code ratelimit.token.consume}, {@code ratelimit.lock.acquire}) when the application has an
 * {@code ObservationRegistry} (Spring Boot's, with tracing when a tracer is present): a listener of the limiter's
 * events.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass(ObservationRegistry.class)
public final class RateLimitObservationAutoConfiguration {

    @Bean
    RateLimitListener rateLimitObservationListener(ObjectProvider<ObservationRegistry> registry) {
        ObservationRegistry observations = registry.getIfAvailable(() -> ObservationRegistry.NOOP);
        return new RateLimitObservationListener(observations);
    }
}
