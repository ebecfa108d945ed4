package io.github.ratelimit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.kit.Poll;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.util.backoff.FixedBackOff;

/**
 * {@code @RateLimited} on a {@code @KafkaListener}, with the starter's and Spring Boot's Kafka auto-configuration, a
 * real Redis and an embedded KRaft broker: records beyond the limit wait in the topic; each is processed exactly once,
 * none reaches the application's error handler, and the group commits every offset once all are processed.
 */
class KafkaListenerLimitsTest {

    static EmbeddedKafkaKraftBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = new EmbeddedKafkaKraftBroker(1, 2, "orders", "rebalanced", "batches");
        broker.afterPropertiesSet();
    }

    @AfterAll
    static void stopBroker() {
        broker.destroy();
    }

    static class Orders {

        final Map<String, AtomicInteger> processed = new ConcurrentHashMap<>();

        @KafkaListener(id = "orders", topics = "${orders.topic:orders}", groupId = "${orders.topic:orders}")
        @RateLimited(name = "orders", limit = 5, windowMs = 1_000, key = "'all'")
        void process(ConsumerRecord<String, String> record) {
            processed.computeIfAbsent(record.value(), v -> new AtomicInteger()).incrementAndGet();
        }

        Map<String, AtomicInteger> processed() {
            return processed;
        }
    }

    /** A batch listener whose batch costs one unit per record: 10 records a second, at most 4 a poll. */
    static class Batches {

        final Map<String, AtomicInteger> processed = new ConcurrentHashMap<>();

        @KafkaListener(id = "batches", topics = "batches", batch = "true", properties = "max.poll.records=4")
        @RateLimited(name = "batches", limit = 10, windowMs = 1_000, key = "'all'", cost = "#records.size()")
        void process(List<ConsumerRecord<String, String>> records) {
            records.forEach(record -> processed
                    .computeIfAbsent(record.value(), v -> new AtomicInteger())
                    .incrementAndGet());
        }

        Map<String, AtomicInteger> processed() {
            return processed;
        }
    }

    /** The application's own error handler: retries, then skips. Refusals must never reach it. */
    static final AtomicInteger handled = new AtomicInteger();

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class KafkaApp {
        @Bean
        Orders orders() {
            return new Orders();
        }

        @Bean
        Batches batches() {
            return new Batches();
        }

        @Bean
        CommonErrorHandler applicationErrorHandler() {
            return new DefaultErrorHandler(new FixedBackOff(0, 1)) {
                @Override
                public void handleRemaining(
                        Exception thrown,
                        List<ConsumerRecord<?, ?>> records,
                        org.apache.kafka.clients.consumer.Consumer<?, ?> consumer,
                        MessageListenerContainer container) {
                    handled.incrementAndGet();
                    super.handleRemaining(thrown, records, consumer, container);
                }
            };
        }
    }

    /** The offsets the group committed, summed over the topic's partitions. */
    static long committed(Admin admin, String group) {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get();
            return committed.values().stream()
                    .mapToLong(OffsetAndMetadata::offset)
                    .sum();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    static ConfigurableApplicationContext instance(String prefix, String topic) {
        return new SpringApplicationBuilder(KafkaApp.class)
                .web(WebApplicationType.NONE)
                .properties(Map.of(
                        "spring.data.redis.url",
                        SharedRedis.get().url(),
                        "ratelimit.key-prefix",
                        prefix,
                        "spring.kafka.bootstrap-servers",
                        broker.getBrokersAsString(),
                        "spring.kafka.consumer.auto-offset-reset",
                        "earliest",
                        "orders.topic",
                        topic))
                .run();
    }

    @Test
    void recordsBeyondTheLimitWaitAndAreEachProcessedOnceWithoutReachingTheErrorHandler() throws Exception {
        try (ConfigurableApplicationContext context = instance("kafka-" + UUID.randomUUID() + ":", "orders")) {
            eachProcessedOnceAndCommitted(context, "orders", "orders", 20, context.getBean(Orders.class)::processed);
        }
    }

    @Test
    void aRefusedBatchWaitsWholeAndEachRecordIsProcessedOnce() throws Exception {
        try (ConfigurableApplicationContext context = instance("kafka-" + UUID.randomUUID() + ":", "orders")) {
            eachProcessedOnceAndCommitted(context, "batches", "batches", 30, context.getBean(Batches.class)::processed);
        }
    }

    /**
     * Sends {@code count} records to {@code topic}, more than its listener's limit admits at once, and checks what a
     * refusal must leave: each record processed exactly once ({@code processed} counts them), the consumer paused by a
     * refusal, none at the application's error handler, and every offset committed by the group.
     */
    static void eachProcessedOnceAndCommitted(
            ConfigurableApplicationContext context,
            String topic,
            String group,
            int count,
            Supplier<Map<String, AtomicInteger>> processed) {
        @SuppressWarnings("unchecked")
        KafkaTemplate<Object, Object> template = context.getBean(KafkaTemplate.class);
        for (int i = 0; i < count; i++) {
            template.send(topic, topic + "-" + i, topic + "-" + i);
        }
        template.flush();
        Poll.until(
                "all " + count + " records of " + topic + " processed",
                Duration.ofSeconds(60),
                () -> processed.get().size() == count);
        assertThat(processed.get().values())
                .as("each record processed exactly once")
                .allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        assertThat(context.getBean(RateLimitedListeners.class).pauses())
                .as("the limit refused some and paused the consumer")
                .isPositive();
        assertThat(handled.get())
                .as("refusals that reached the application's error handler")
                .isZero();
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString()))) {
            Poll.until("every offset committed", Duration.ofSeconds(30), () -> committed(admin, group) == count);
        }
    }

    @Test
    void aRebalanceDuringAPauseLeavesNoPartitionPausedAndLosesNothing() throws Exception {
        int records = 80; // 16 s at 5 a second: the second instance joins well before the end
        String prefix = "kafka-" + UUID.randomUUID() + ":";
        try (ConfigurableApplicationContext first = instance(prefix, "rebalanced")) {
            @SuppressWarnings("unchecked")
            KafkaTemplate<Object, Object> template = first.getBean(KafkaTemplate.class);
            for (int i = 0; i < records; i++) {
                template.send("rebalanced", "order-" + i, "order-" + i);
            }
            template.flush();
            Poll.until(
                    "the first instance paused by a refusal",
                    Duration.ofSeconds(30),
                    () -> first.getBean(RateLimitedListeners.class).pauses() > 0);
            try (ConfigurableApplicationContext second = instance(prefix, "rebalanced")) {
                Poll.until(
                        "a rebalance gave the second instance a partition",
                        Duration.ofSeconds(60),
                        () -> !second.getBean(KafkaListenerEndpointRegistry.class)
                                .getListenerContainer("orders")
                                .getAssignedPartitions()
                                .isEmpty());
                assertThat(first.getBean(Orders.class).processed().size())
                        .as("orders processed when the partitions moved: the rebalance came during the run")
                        .isLessThan(records);
                Map<String, AtomicInteger> both = new ConcurrentHashMap<>();
                Poll.until("all orders processed by the two instances", Duration.ofSeconds(90), () -> {
                    both.clear();
                    for (ConfigurableApplicationContext context : List.of(first, second)) {
                        context.getBean(Orders.class).processed().forEach((order, count) -> both.computeIfAbsent(
                                        order, o -> new AtomicInteger())
                                .addAndGet(count.get()));
                    }
                    return both.size() == records;
                });
                assertThat(both.values())
                        .as("each order processed exactly once across the two instances")
                        .allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
                try (Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString()))) {
                    Poll.until(
                            "every offset committed",
                            Duration.ofSeconds(30),
                            () -> committed(admin, "rebalanced") == records);
                }
            }
        }
        assertThat(handled.get())
                .as("refusals that reached the application's error handler")
                .isZero();
    }
}
