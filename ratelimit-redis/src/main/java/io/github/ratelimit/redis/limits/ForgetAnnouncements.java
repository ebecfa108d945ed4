package io.github.ratelimit.redis.limits;

import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.AclRefusals;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells every instance that what it remembers of a key is stale (refusals served in the JVM after a reset, a penalty
 * lifted, a give-back; an operator's blocks after one is lifted), on one pub/sub channel, and owns the subscription
 * of those who remember ({@link #listen}). An operator's write waits until every instance that heard it says it has
 * forgotten ({@link #announceAndWait}): the message carries a nonce, each listener acknowledges it on a second
 * channel once it has forgotten, and the writer counts acknowledgements up to the number of listeners Redis delivered
 * the message to, within the guard's budget. So the next call on any instance sees the write. Other announcements
 * ({@link #announce}) are not waited for.
 */
final class ForgetAnnouncements {

    private static final Logger log = LoggerFactory.getLogger(ForgetAnnouncements.class);

    /** The version of the announcements written here. */
    static final int FORMAT = 2;

    private final RedissonClient redisson;
    private final String channel;
    private final String without;
    private final RTopic announcements;
    private final RTopic acknowledgements;
    private final RedisGuard guard;
    private final Map<String, Semaphore> waiting = new ConcurrentHashMap<>();
    private final AtomicBoolean subscribing = new AtomicBoolean();
    private volatile boolean listening;
    private volatile boolean hearingAcknowledgements;
    private final Set<String> unreadableVersions = ConcurrentHashMap.newKeySet();

    /**
     * @param without what is done while the announcements cannot be heard, for the log of a refused subscription
     */
    ForgetAnnouncements(RedissonClient redisson, RedisGuard guard, String channel, String without) {
        this.redisson = redisson;
        this.channel = channel;
        this.without = without;
        this.announcements = redisson.getTopic(channel, StringCodec.INSTANCE);
        this.acknowledgements = redisson.getTopic(channel + ":forgotten", StringCodec.INSTANCE);
        this.guard = guard;
    }

    /**
     * Starts hearing announcements, once: each announced key is given to {@code forget}, and acknowledged (if its
     * sender waits) once the stage it returns has completed. A subscription that failed is tried again on the next
     * call; nothing here waits for Redis.
     *
     * @return whether announcements are heard now
     */
    boolean listen(Function<String, CompletionStage<?>> forget) {
        if (listening) {
            return true;
        }
        if (subscribing.compareAndSet(false, true)) {
            try {
                announcements
                        .addListenerAsync(String.class, (channel, message) -> heard(message, forget))
                        .whenComplete((id, error) -> {
                            listening = error == null;
                            if (error != null) {
                                AclRefusals.subscriptionFailed(redisson, channel, error, without);
                            }
                            subscribing.set(false);
                        });
            } catch (RuntimeException e) {
                subscribing.set(false);
            }
        }
        return false;
    }

    /** Whether announcements are heard (until then, whoever remembers learns of changes otherwise). */
    boolean isListening() {
        return listening;
    }

    /** Stops hearing announcements. */
    void stopListening() {
        if (listening || subscribing.get()) {
            announcements.removeAllListenersAsync();
        }
    }

    /** Announces without waiting (a give-back: no one waits for it). */
    void announce(String key) {
        announcements.publishAsync(key + '\n' + FORMAT + ';');
    }

    /**
     * Announces and waits until every instance that heard it has forgotten, or the guard's budget has passed; logs a
     * WARN naming how many did not confirm in time.
     */
    void announceAndWait(String key) {
        listenForAcknowledgements();
        String nonce = FORMAT + ";" + UUID.randomUUID();
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
     * Reads an announcement: a key, a newline and a last line, {@code <version>;<nonce>} or (version 1) the nonce
     * alone; the nonce is empty when the sender does not wait. The last line is echoed once the key is forgotten.
     */
    private void heard(String message, Function<String, CompletionStage<?>> forget) {
        int lastLineAt = message.lastIndexOf('\n');
        String lastLine = lastLineAt < 0 ? "" : message.substring(lastLineAt + 1);
        CompletionStage<?> forgotten = forget.apply(lastLineAt < 0 ? message : message.substring(0, lastLineAt));
        int versionEnds = lastLine.indexOf(';');
        String version = versionEnds < 0 ? "1" : lastLine.substring(0, versionEnds);
        if (!version.equals("1") && !version.equals(Integer.toString(FORMAT))) {
            if (unreadableVersions.size() < 16 && unreadableVersions.add(version)) {
                log.warn(
                        "An announcement on {} is of wire format {}, which this instance (format {}) cannot read: it"
                                + " forgets what it remembers of the key but does not confirm it; upgrade this"
                                + " instance to the release of its sender (docs/upgrading.md)",
                        announcements.getChannelNames(),
                        Messages.printable(version),
                        FORMAT);
            }
            return;
        }
        if (lastLine.length() > versionEnds + 1) {
            forgotten.whenComplete((done, error) -> acknowledgements.publishAsync(lastLine));
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
