package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.test.kit.Poll;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.LoggerFactory;

/**
 * The announcements' wire format across releases (docs/upgrading.md), on a real Redis: a version-1 announcement (the
 * releases before, the nonce alone on the last line) is applied and its nonce echoed; a version-1 reader, written here
 * as those releases read, applies this release's announcement and its echo is counted by the writer; an announcement
 * of a later version is forgotten, logged once naming its version, and not confirmed.
 */
class ForgetAnnouncementsTest {

    private static final Duration WITHIN = Duration.ofSeconds(5);

    private final String channel = "announcements-" + UUID.randomUUID();
    private final Queue<String> forgotten = new ConcurrentLinkedQueue<>();
    private final Queue<String> echoed = new ConcurrentLinkedQueue<>();
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(ForgetAnnouncements.class);
    private RedissonClient listenerClient;
    private RedissonClient senderClient;
    private ForgetAnnouncements listener;
    private RTopic raw;

    @BeforeEach
    void listen() {
        logged.start();
        logger.addAppender(logged);
        listenerClient = SharedRedis.get().newClient();
        senderClient = SharedRedis.get().newClient();
        listener = new ForgetAnnouncements(listenerClient, Guards.patient(), channel, "nothing");
        Poll.until(
                "listening",
                WITHIN,
                () -> listener.listen(key -> {
                    forgotten.add(key);
                    return CompletableFuture.completedFuture(null);
                }));
        raw = senderClient.getTopic(channel, StringCodec.INSTANCE);
        senderClient
                .getTopic(channel + ":forgotten", StringCodec.INSTANCE)
                .addListener(String.class, (channel, echo) -> echoed.add(echo));
    }

    @AfterEach
    void stop() {
        logger.detachAppender(logged);
        listener.stopListening();
        listenerClient.shutdown();
        senderClient.shutdown();
    }

    @Test
    void aVersionOneAnnouncementIsAppliedAndItsNonceEchoed() {
        raw.publish("ratelimit:v5:{a}:x\nb7c2-nonce");
        raw.publish("ratelimit:v5:{a}:y\n");

        Poll.until("the nonce echoed", WITHIN, () -> echoed.contains("b7c2-nonce"));
        Poll.until("both keys forgotten", WITHIN, () -> forgotten.size() == 2);
        assertThat(forgotten).containsExactly("ratelimit:v5:{a}:x", "ratelimit:v5:{a}:y");
        assertThat(echoed).as("no echo of an announcement no one waits for").containsExactly("b7c2-nonce");
    }

    @Test
    void aReaderOfVersionOneAppliesThisReleasesAnnouncementAndTheWriterCountsItsEcho() {
        RedissonClient oldClient = SharedRedis.get().newClient();
        Queue<String> oldForgot = new ConcurrentLinkedQueue<>();
        RTopic oldAcknowledgements = oldClient.getTopic(channel + ":forgotten", StringCodec.INSTANCE);
        // the previous release's reader, beside this release's: the key before the last newline, the rest a nonce
        // to echo; the writer waits for both echoes
        oldClient.getTopic(channel, StringCodec.INSTANCE).addListener(String.class, (channel, message) -> {
            int nonceAt = message.lastIndexOf('\n');
            oldForgot.add(nonceAt < 0 ? message : message.substring(0, nonceAt));
            if (nonceAt >= 0 && nonceAt < message.length() - 1) {
                oldAcknowledgements.publish(message.substring(nonceAt + 1));
            }
        });
        ForgetAnnouncements writer = new ForgetAnnouncements(senderClient, Guards.patient(), channel, "nothing");

        try {
            writer.announceAndWait("ratelimit:v5:{b}:reset\nwith a newline");
        } finally {
            oldClient.shutdown();
        }

        assertThat(oldForgot).containsExactly("ratelimit:v5:{b}:reset\nwith a newline");
        assertThat(forgotten).containsExactly("ratelimit:v5:{b}:reset\nwith a newline");
        assertThat(warnings())
                .as("the writer's WARN that an instance did not confirm")
                .isEmpty();
    }

    @Test
    void anAnnouncementOfALaterVersionIsForgottenLoggedOnceAndNotConfirmed() {
        raw.publish("ratelimit:v5:{c}:x\n9;first");
        raw.publish("ratelimit:v5:{c}:y\n9;second");
        raw.publish("ratelimit:v5:{c}:z\n2;third");

        // echoes are sent in the order heard: once the third is echoed, the first two would have been
        Poll.until("the version-2 nonce echoed", WITHIN, () -> echoed.contains("2;third"));
        assertThat(echoed).containsExactly("2;third");
        assertThat(forgotten).containsExactly("ratelimit:v5:{c}:x", "ratelimit:v5:{c}:y", "ratelimit:v5:{c}:z");
        assertThat(warnings()).hasSize(1);
        assertThat(warnings().get(0)).contains("wire format 9").contains(channel);
    }

    private List<String> warnings() {
        return logged.list.stream()
                .filter(event -> event.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }
}
