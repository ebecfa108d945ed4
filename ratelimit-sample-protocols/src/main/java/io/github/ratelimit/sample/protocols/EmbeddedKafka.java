package io.github.ratelimit.sample.protocols;

import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * Starts an embedded Kafka broker (KRaft, one node, the topic {@code orders} with two partitions) when no
 * {@code spring.kafka.bootstrap-servers} is set, and points the application at it. A second instance given the logged
 * address joins the same consumer group.
 */
public class EmbeddedKafka implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableEnvironment environment = context.getEnvironment();
        if (environment.containsProperty("spring.kafka.bootstrap-servers")) {
            return;
        }
        EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 2, OrderListener.TOPIC);
        broker.afterPropertiesSet();
        String address = broker.getBrokersAsString();
        log.info(
                "Embedded Kafka broker at {} (give it to another instance as --spring.kafka.bootstrap-servers)",
                address);
        environment
                .getPropertySources()
                .addFirst(new MapPropertySource("embeddedKafka", Map.of("spring.kafka.bootstrap-servers", address)));
        context.addApplicationListener(event -> {
            if (event instanceof ContextClosedEvent closed && closed.getApplicationContext() == context) {
                broker.destroy();
            }
        });
    }
}
