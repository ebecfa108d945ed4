package io.github.ratelimit.kafka;

import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.springframework.core.log.LogAccessor;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.TopicPartitionOffset;

/**
 * A listener container's error handler, with the library's refusals taken out: a record a limit refused (or a batch) is
 * sought back, with every record after it, and what came before it is committed (so nothing is lost, skipped or
 * processed twice, and no offset past it is committed); its partitions pause until the refusal's advice, then resume.
 * Every other error goes to the application's handler as before.
 */
final class RefusalPausing implements CommonErrorHandler {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RefusalPausing.class);

    private final CommonErrorHandler delegate;
    private final ScheduledExecutorService scheduler;
    private final AtomicLong pauses;

    RefusalPausing(CommonErrorHandler delegate, ScheduledExecutorService scheduler, AtomicLong pauses) {
        this.delegate = delegate;
        this.scheduler = scheduler;
        this.pauses = pauses;
    }

    CommonErrorHandler delegate() {
        return delegate;
    }

    /** How long a refusal of the library's asks to wait, or null for any other error. */
    static @Nullable Duration refusal(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof RateLimitExceededException exceeded) {
                return exceeded.decision().retryAfter();
            }
            if (cause instanceof ConcurrencyLimitExceededException busy) {
                return busy.retryAfter();
            }
            if (cause instanceof RedisUnavailableException unavailable) {
                return unavailable.retryAfter();
            }
        }
        return null;
    }

    @Override
    public boolean seeksAfterHandling() {
        return true; // only wraps handlers that seek (RateLimitedListeners checks)
    }

    @Override
    public void handleRemaining(
            Exception thrown,
            List<ConsumerRecord<?, ?>> records,
            Consumer<?, ?> consumer,
            MessageListenerContainer container) {
        Duration wait = refusal(thrown);
        if (wait == null) {
            delegate.handleRemaining(thrown, records, consumer, container);
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> first = new LinkedHashMap<>();
        for (ConsumerRecord<?, ?> record : records) {
            first.putIfAbsent(
                    new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset()));
        }
        throw pause(first, wait, thrown, consumer, container);
    }

    /**
     * Seeks each partition back to its first record not processed, commits what came before (see below), pauses those
     * partitions until {@code wait} has passed, and returns what the handler throws: thrown, not returned, because a
     * handler that returns has handled the records, and the container then commits past them (ackAfterHandle), so that
     * a rebalance during the pause would give a partition to its next owner after the refused record, which no one
     * would ever process. The container logs it at DEBUG only.
     */
    private KafkaException pause(
            Map<TopicPartition, OffsetAndMetadata> first,
            Duration wait,
            Exception thrown,
            Consumer<?, ?> consumer,
            MessageListenerContainer container) {
        // what came before the refused record of each partition was processed: committed now, so that a rebalance
        // during the pause gives the partition to its next owner from there, not from an older commit (unless the
        // application acknowledges records itself, or commits in a transaction: then that stays its own)
        var properties = container.getContainerProperties();
        boolean manual = properties.getAckMode() == ContainerProperties.AckMode.MANUAL
                || properties.getAckMode() == ContainerProperties.AckMode.MANUAL_IMMEDIATE;
        if (!manual && properties.getKafkaAwareTransactionManager() == null) {
            try {
                consumer.commitSync(first);
            } catch (RuntimeException e) {
                LOG.warn("Could not commit the offsets before a refused record; a rebalance during its pause may"
                        + " process them again: " + e.getMessage());
            }
        }
        first.forEach((partition, offset) -> consumer.seek(partition, offset.offset()));
        first.keySet().forEach(container::pausePartition);
        pauses.incrementAndGet();
        long millis = Math.max(1, wait.toMillis());
        // lifted whether the partition is still assigned or not, so that one given back later is not left paused
        scheduler.schedule(() -> first.keySet().forEach(container::resumePartition), millis, TimeUnit.MILLISECONDS);
        return new KafkaException(
                "Paused " + first.keySet() + " for " + millis
                        + " ms after a refusal; the refused records are read again",
                KafkaException.Level.DEBUG,
                thrown);
    }

    @Override
    public boolean handleOne(
            Exception thrown,
            ConsumerRecord<?, ?> record,
            Consumer<?, ?> consumer,
            MessageListenerContainer container) {
        return delegate.handleOne(thrown, record, consumer, container);
    }

    @Override
    public void handleOtherException(
            Exception thrown, Consumer<?, ?> consumer, MessageListenerContainer container, boolean batchListener) {
        delegate.handleOtherException(thrown, consumer, container, batchListener);
    }

    @Override
    public void handleBatch(
            Exception thrown,
            ConsumerRecords<?, ?> data,
            Consumer<?, ?> consumer,
            MessageListenerContainer container,
            Runnable invokeListener) {
        Duration wait = refusal(thrown);
        if (wait == null) {
            delegate.handleBatch(thrown, data, consumer, container, invokeListener);
            return;
        }
        // the whole batch was refused before the listener ran: each partition is read again from its first record
        Map<TopicPartition, OffsetAndMetadata> first = new LinkedHashMap<>();
        for (TopicPartition partition : data.partitions()) {
            first.put(
                    partition,
                    new OffsetAndMetadata(data.records(partition).get(0).offset()));
        }
        throw pause(first, wait, thrown, consumer, container);
    }

    @Override
    public <K, V> ConsumerRecords<K, V> handleBatchAndReturnRemaining(
            Exception thrown,
            ConsumerRecords<?, ?> data,
            Consumer<?, ?> consumer,
            MessageListenerContainer container,
            Runnable invokeListener) {
        return delegate.handleBatchAndReturnRemaining(thrown, data, consumer, container, invokeListener);
    }

    @Override
    public boolean deliveryAttemptHeader() {
        return delegate.deliveryAttemptHeader();
    }

    @Override
    public int deliveryAttempt(TopicPartitionOffset topicPartitionOffset) {
        return delegate.deliveryAttempt(topicPartitionOffset);
    }

    @Override
    public LogAccessor logger() {
        return delegate.logger();
    }

    @Override
    public void clearThreadState() {
        delegate.clearThreadState();
    }

    @Override
    public boolean isAckAfterHandle() {
        return delegate.isAckAfterHandle();
    }

    @Override
    public void setAckAfterHandle(boolean ack) {
        delegate.setAckAfterHandle(ack);
    }

    @Override
    public void onPartitionsAssigned(
            Consumer<?, ?> consumer, Collection<TopicPartition> partitions, Runnable publishPause) {
        delegate.onPartitionsAssigned(consumer, partitions, publishPause);
    }
}
