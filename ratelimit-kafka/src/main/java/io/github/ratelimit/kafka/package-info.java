/**
 * Limits on Kafka listeners: a refusal of an annotation on a {@code @KafkaListener} method pauses its consumer until
 * the advice and redelivers the refused record ({@link io.github.ratelimit.kafka.RateLimitedListeners}).
 */
@NullMarked
package io.github.ratelimit.kafka;

import org.jspecify.annotations.NullMarked;
