package io.github.ratelimit.benchmarks;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.annotation.RateLimited;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * What {@code @RateLimited} adds to a {@code @KafkaListener}'s record: an embedded broker, one topic read by a listener
 * under a limit no run reaches (each record decided in Redis, one round trip) and one read by the same listener without
 * it, in alternating rounds of {@code records} records each, sent while its listener is paused; prints each round's
 * time per record, from the listener's resumption to its last record, and the difference. Run with {@code --kafka} (and
 * {@code --rounds=N}, {@code --records=N}).
 */
final class KafkaThroughput {

    private KafkaThroughput() {}

    static final AtomicReference<CountDownLatch> remaining = new AtomicReference<>(new CountDownLatch(0));

    static void processed() {
        remaining.get().countDown();
    }

    static class Listeners {

        @KafkaListener(id = "bench-plain", topics = "bench-plain")
        void plain(ConsumerRecord<String, String> record) {
            processed();
        }

        @KafkaListener(id = "bench-limited", topics = "bench-limited")
        @RateLimited(
                name = "bench-kafka",
                limit = 1_000_000_000,
                windowMs = 60_000,
                algorithm = Algorithm.FIXED_WINDOW,
                key = "'all'")
        void limited(ConsumerRecord<String, String> record) {
            processed();
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {
        @Bean
        Listeners listeners() {
            return new Listeners();
        }
    }

    static void run(String redisUrl, int rounds, int records) throws Exception {
        EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1, "bench-plain", "bench-limited");
        broker.afterPropertiesSet();
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .logStartupInfo(false)
                .run(
                        "--spring.data.redis.url=" + redisUrl,
                        "--spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
                        "--spring.kafka.consumer.auto-offset-reset=earliest")) {
            @SuppressWarnings("unchecked")
            KafkaTemplate<Object, Object> kafka = context.getBean(KafkaTemplate.class);
            KafkaListenerEndpointRegistry registry = context.getBean(KafkaListenerEndpointRegistry.class);
            System.out.println("Kafka record listener, us per record (" + records
                    + " records a round, from the listener's resumption to its last record):");
            AlternatingRounds.print(
                    rounds,
                    "no limit",
                    "@RateLimited",
                    "@RateLimited",
                    1,
                    "us per record",
                    () -> measure(kafka, registry.getListenerContainer("bench-plain"), "bench-plain", records),
                    () -> measure(kafka, registry.getListenerContainer("bench-limited"), "bench-limited", records));
        } finally {
            broker.destroy();
        }
    }

    /**
     * Sends {@code records} records to a topic while its listener is paused, resumes it, and returns the microseconds
     * per record from then to the last record processed.
     */
    private static double measure(
            KafkaTemplate<Object, Object> kafka, MessageListenerContainer listener, String topic, int records)
            throws InterruptedException {
        listener.pause();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (!listener.isPauseRequested() || !listener.isContainerPaused()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(topic + "'s listener never paused");
            }
            Thread.sleep(5);
        }
        CountDownLatch done = new CountDownLatch(records);
        remaining.set(done);
        for (int i = 0; i < records; i++) {
            kafka.send(topic, "r" + i, "r" + i);
        }
        kafka.flush();
        long started = System.nanoTime();
        listener.resume();
        if (!done.await(5, TimeUnit.MINUTES)) {
            throw new IllegalStateException(done.getCount() + " records of " + topic + " never processed");
        }
        return (System.nanoTime() - started) / 1_000.0 / records;
    }
}
