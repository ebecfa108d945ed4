package io.github.ratelimit.sample.protocols;

import java.util.Map;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code POST /api/orders?count=N} produces N orders to the topic {@code orders}; {@code GET /api/orders/processed}
 * tells how many were processed, by every instance together, how many of them twice, and how many a second.
 */
@RestController
@RequestMapping("/api/orders")
public class OrdersController {

    static final int MAX_COUNT = 10_000;

    private final KafkaTemplate<String, String> kafka;
    private final OrderLedger ledger;

    OrdersController(KafkaTemplate<String, String> kafka, OrderLedger ledger) {
        this.kafka = kafka;
        this.ledger = ledger;
    }

    @PostMapping
    public Map<String, Object> produce(@RequestParam(defaultValue = "1") int count) {
        if (count < 1 || count > MAX_COUNT) {
            throw new ResponseStatusException(
                    HttpStatus.BAD_REQUEST, "count must be between 1 and " + MAX_COUNT + ", was " + count);
        }
        String batch = UUID.randomUUID().toString();
        for (int i = 0; i < count; i++) {
            String order = batch + "-" + i;
            kafka.send(OrderListener.TOPIC, order, order);
        }
        kafka.flush();
        return Map.of("sent", count);
    }

    @GetMapping("/processed")
    public OrderLedger.Report processed() {
        return ledger.report();
    }
}
