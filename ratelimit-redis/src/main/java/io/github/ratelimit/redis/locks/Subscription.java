package io.github.ratelimit.redis.locks;

import io.github.ratelimit.redis.internal.AclRefusals;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.api.listener.MessageListener;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pub/sub channel, subscribed on first use and never waited for: no thread (a virtual one pinned by the monitor,
 * an I/O thread continuing an async path) blocks on it, and a subscription that failed is made again at the next use.
 * What the channel announces must therefore also be learnt another way (a waiter's back-off, a holder's next renewal).
 */
final class Subscription {

    private static final Logger log = LoggerFactory.getLogger(Subscription.class);

    private final RedissonClient redisson;
    private final String channel;
    private final MessageListener<String> listener;
    private final String without;
    private volatile @Nullable RTopic topic;

    /** @param without what is done while the channel cannot be heard, for the log of a refused subscription */
    Subscription(RedissonClient redisson, String channel, MessageListener<String> listener, String without) {
        this.without = without;
        this.redisson = redisson;
        this.channel = channel;
        this.listener = listener;
    }

    void ensure() {
        if (topic == null) {
            synchronized (this) {
                if (topic == null) {
                    RTopic subscribed = redisson.getTopic(channel, StringCodec.INSTANCE);
                    topic = subscribed;
                    subscribed.addListenerAsync(String.class, listener).whenComplete((id, failed) -> {
                        if (failed != null) {
                            AclRefusals.subscriptionFailed(redisson, channel, failed, without);
                            topic = null; // the next use subscribes again
                        }
                    });
                }
            }
        }
    }

    void close() {
        RTopic subscribed = topic;
        if (subscribed != null && !redisson.isShutdown()) {
            try {
                subscribed.removeAllListeners();
            } catch (RuntimeException e) {
                log.debug("Could not unsubscribe from {}", channel, e);
            }
        }
    }
}
