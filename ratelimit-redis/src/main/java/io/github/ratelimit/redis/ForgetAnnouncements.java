package io.github.ratelimit.redis;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells every instance that what it remembers of a key is stale (refusals served in the JVM after a reset, a penalty
 * lifted, a give-back; an operator's blocks after one is lifted), on one pub/sub channel. An operator's write waits until every instance that heard it says it
 * has forgotten ({@link #announceAndWait}): the message carries a nonce, each listener acknowledges it on a second
 * channel once it has forgotten, and the writer counts acknowledgements up to the number of listeners Redis delivered
 * the message to, within the guard's budget. So the next call on any instance sees the write. Other announcements
 * ({@link #announce}) are not waited for.
 */
final class ForgetAnnouncements {

    private static final Logger log = LoggerFactory.getLogger(ForgetAnnouncements.class);

    private final RTopic announcements;
    private final RTopic acknowledgements;
    private final RedisGuard guard;
    private final Map<String, Semaphore> waiting = new ConcurrentHashMap<>();
    private volatile boolean hearingAcknowledgements;

    ForgetAnnouncements(RedissonClient redisson, RedisGuard guard, String channel) {
        this.announcements = redisson.getTopic(channel, StringCodec.INSTANCE);
        this.acknowledgements = redisson.getTopic(channel + ":forgotten", StringCodec.INSTANCE);
        this.guard = guard;
    }

    /** The channel of announcements, for a listener ({@link #heard} reads its messages). */
    RTopic channel() {
        return announcements;
    }

    /** Announces without waiting (a give-back: no one waits for it). */
    void announce(String key) {
        announcements.publishAsync(key + '\n');
    }

    /**
     * Announces and waits until every instance that heard it has forgotten, or the guard's budget has passed; logs a
     * WARN naming how many did not confirm in time.
     */
    void announceAndWait(String key) {
        listenForAcknowledgements();
        String nonce = UUID.randomUUID().toString();
        Semaphore forgotten = new Semaphore(0);
        waiting.put(nonce, forgotten);
        try {
            long listeners = guard.call(() -> announcements.publishAsync(key + '\n' + nonce));
            long budget = guard.budget().toNanos();
            if (listeners > 0 && !forgotten.tryAcquire((int) listeners, budget, TimeUnit.NANOSECONDS)) {
                log.warn(
                        "{} of {} instance(s) confirmed within {} ms that they applied '{}' announced on {}; the"
                                + " others apply it when the announcement reaches them",
                        forgotten.availablePermits(),
                        listeners,
                        guard.budget().toMillis(),
                        key,
                        announcements.getChannelNames());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            waiting.remove(nonce);
        }
    }

    /**
     * Reads an announcement: gives its key to {@code forget} and then, if its sender waits, acknowledges it.
     *
     * @param message a key, a newline and the sender's nonce (none when it does not wait)
     */
    void heard(String message, Consumer<String> forget) {
        heardAsync(message, key -> {
            forget.accept(key);
            return CompletableFuture.completedFuture(null);
        });
    }

    /**
     * Reads an announcement whose forgetting ends later (a copy read again): acknowledges it, if its sender waits,
     * once the stage {@code forget} returns has completed.
     */
    void heardAsync(String message, Function<String, CompletionStage<?>> forget) {
        int nonceAt = message.lastIndexOf('\n');
        CompletionStage<?> forgotten = forget.apply(nonceAt < 0 ? message : message.substring(0, nonceAt));
        if (nonceAt >= 0 && nonceAt < message.length() - 1) {
            String nonce = message.substring(nonceAt + 1);
            forgotten.whenComplete((done, error) -> acknowledgements.publishAsync(nonce));
        }
    }

    private void listenForAcknowledgements() {
        if (hearingAcknowledgements) {
            return;
        }
        synchronized (this) {
            if (!hearingAcknowledgements) {
                guard.call(() -> acknowledgements.addListenerAsync(String.class, (channel, nonce) -> {
                    Semaphore forgotten = waiting.get(nonce);
                    if (forgotten != null) {
                        forgotten.release();
                    }
                }));
                hearingAcknowledgements = true;
            }
        }
    }
}
