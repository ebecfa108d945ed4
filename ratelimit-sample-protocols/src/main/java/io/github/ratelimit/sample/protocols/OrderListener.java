package io.github.ratelimit.sample.protocols;

import io.github.ratelimit.annotation.RateLimited;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Processes the topic {@code orders} at most 20 records a second across every instance of the group: a record beyond
 * that waits in the topic (its partition pauses until the limit has room) instead of failing into the error handler.
 */
@Component
public class OrderListener {

    static final String TOPIC = "orders";

    private final OrderLedger ledger;

    OrderListener(OrderLedger ledger) {
        this.ledger = ledger;
    }

    @KafkaListener(id = "orders", topics = TOPIC, groupId = "ratelimit-sample-orders")
    @RateLimited(name = "orders", limit = 20, windowMs = 1_000, key = "'all'")
    public void process(ConsumerRecord<String, String> record) {
        ledger.processed(record.value());
    }
}
