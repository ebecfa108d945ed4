package io.github.ratelimit.kafka;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;

/** Kafka listeners: {@link RateLimitedListeners}, which makes their containers wait out the library's refusals. */
@AutoConfiguration(
        after = RateLimitAutoConfiguration.class,
        afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass(KafkaListenerEndpointRegistry.class)
public final class RateLimitKafkaAutoConfiguration {

    /** The containers of {@code @KafkaListener} methods, when the application has them (with {@code @EnableKafka}). */
    @Bean
    @ConditionalOnMissingBean
    RateLimitedListeners rateLimitedKafkaListeners(ObjectProvider<KafkaListenerEndpointRegistry> registry) {
        return new RateLimitedListeners(registry);
    }
}
