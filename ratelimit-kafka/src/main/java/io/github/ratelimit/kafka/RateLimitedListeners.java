package io.github.ratelimit.kafka;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * Makes the {@code @KafkaListener} containers answer the library's refusals by waiting, not by failing: before the
 * containers start, each listener's error handler (the application's, else Spring Kafka's default) is wrapped so that a
 * record (or a batch listener's batch, decided whole) refused by {@code @RateLimited} (or a concurrency limit, or Redis
 * unable to decide a limit that fails closed) is sought back with the records after it, what came before it is
 * committed, and its partition pauses until the refusal's advice, then resumes. The refused record never reaches the
 * error handler, is never sent to a dead-letter topic, skipped or processed twice, also when its partition moves to
 * another instance of the group during the pause (docs/kafka.md).
 */
public final class RateLimitedListeners implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RateLimitedListeners.class);

    private final ObjectProvider<KafkaListenerEndpointRegistry> registry;
    private final ScheduledExecutorService scheduler;
    private final AtomicLong pauses = new AtomicLong();
    private volatile boolean running;

    /** @param registry where the {@code @KafkaListener} containers are, if the application has any */
    public RateLimitedListeners(ObjectProvider<KafkaListenerEndpointRegistry> registry) {
        this.registry = registry;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "ratelimit-kafka-resume");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Pauses begun by a refusal so far, on this instance. */
    public long pauses() {
        return pauses.get();
    }

    @Override
    public void start() {
        KafkaListenerEndpointRegistry listeners = registry.getIfAvailable();
        for (MessageListenerContainer container :
                listeners == null ? List.<MessageListenerContainer>of() : listeners.getAllListenerContainers()) {
            if (container instanceof AbstractMessageListenerContainer<?, ?> wrapped) {
                CommonErrorHandler handler = wrapped.getCommonErrorHandler();
                if (handler instanceof RefusalPausing) {
                    continue;
                }
                CommonErrorHandler given = handler != null ? handler : new DefaultErrorHandler();
                if (!given.seeksAfterHandling()) {
                    log.warn(
                            "Kafka listener '{}': its error handler {} does not seek back, so refusals of its limits go"
                                    + " to it as errors instead of pausing the consumer",
                            container.getListenerId(),
                            given.getClass().getName());
                    continue;
                }
                wrapped.setCommonErrorHandler(new RefusalPausing(given, scheduler, pauses));
            }
        }
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        scheduler.shutdownNow();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Before the containers start (their registry's phase), after they stop. */
    @Override
    public int getPhase() {
        return AbstractMessageListenerContainer.DEFAULT_PHASE - 1;
    }
}
