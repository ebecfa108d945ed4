package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.test.kit.Poll;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Blocks on a real Redis, seen by two instances (two clients): set on one, the other knows it within a second through
 * pub/sub (its periodic read is a minute away here), with the time left; lifted on the other, gone on the first; a
 * block ends by itself, and so does its key.
 */
class RedisBlocksTest {

    /** The longest a change may take to reach an instance here. */
    private static final Duration WITHIN = Duration.ofSeconds(1);

    private final String prefix = "blocks-" + UUID.randomUUID() + ":";
    private RedissonClient clientOne;
    private RedissonClient clientTwo;
    private RedisBlocks one;
    private RedisBlocks two;

    @BeforeEach
    void start() throws InterruptedException {
        clientOne = SharedRedis.get().newClient();
        clientTwo = SharedRedis.get().newClient();
        one = new RedisBlocks(clientOne, Guards.patient(), prefix, Duration.ofMinutes(1));
        two = new RedisBlocks(clientTwo, Guards.patient(), prefix, Duration.ofMinutes(1));
        one.start();
        two.start();
        // both hear announcements before a test changes anything (else they would learn of it by their reads)
        Poll.until("both instances listening", WITHIN, () -> one.isListening() && two.isListening());
    }

    @AfterEach
    void stop() {
        one.close();
        two.close();
        clientOne.shutdown();
        clientTwo.shutdown();
    }

    @Test
    void aBlockSetOnOneInstanceIsKnownToTheOtherWhenItReturnsAndLiftedEverywhere() throws Exception {
        ClientIdentifier address = ClientIdentifier.of("ip", "203.0.113.61");
        assertThat(two.blockedFor(address)).isNull();
        assertThat(two.isEmpty()).isTrue();

        one.block(address, Duration.ofSeconds(30));
        assertThat(one.blockedFor(address)).isBetween(Duration.ofSeconds(29), Duration.ofSeconds(30));
        // a change returns once every listening instance has read it back (within the guard's budget, 5 s here, as
        // a machine running another build may need): no wait here
        assertThat(two.blockedFor(address)).isBetween(Duration.ofSeconds(28), Duration.ofSeconds(30));
        assertThat(two.blockedFor(ClientIdentifier.of("ip", "203.0.113.62"))).isNull();
        assertThat(two.blockedFor(ClientIdentifier.of("principal", "203.0.113.61")))
                .isNull();

        assertThat(two.lift(address)).isTrue();
        assertThat(two.blockedFor(address)).isNull();
        assertThat(one.blockedFor(address))
                .as("the lift, on the first instance at once")
                .isNull();
        assertThat(two.lift(address)).isFalse();
    }

    @Test
    void theLastChangeIsWhatEveryInstanceKeepsHoweverFastChangesFollowEachOther() throws Exception {
        // every change is announced to both instances, each announcement asks for a read: many reads overlap, and one
        // sent before the last change but answered after it must not replace the copy that knows that change
        ClientIdentifier address = ClientIdentifier.of("ip", "203.0.113.63");
        for (int i = 0; i < 40; i++) {
            (i % 2 == 0 ? one : two).block(address, Duration.ofSeconds(30));
            (i % 2 == 0 ? two : one).lift(address);
        }
        // settled and without it on both, a copy can only be replaced by a read sent after the last change
        Poll.until(
                "both instances settled without the block",
                WITHIN,
                () -> one.isSettled()
                        && two.isSettled()
                        && one.blockedFor(address) == null
                        && two.blockedFor(address) == null);
        assertThat(one.isEmpty()).isTrue();
        assertThat(two.isEmpty()).isTrue();

        two.block(address, Duration.ofSeconds(30));
        Poll.until(
                "the block seen on the first instance",
                WITHIN,
                () -> one.isSettled() && one.blockedFor(address) != null);
    }

    @Test
    void aBlockEndsByItselfAndSoDoesItsKey() throws Exception {
        ClientIdentifier key = ClientIdentifier.of("header:X-Api-Key", "k-1");
        one.block(key, Duration.ofMillis(300));
        assertThat(one.blockedFor(ClientIdentifier.of("header:x-api-key", "k-1")))
                .isNotNull();
        Poll.until("the block ended", WITHIN, () -> one.blockedFor(key) == null);
        Poll.until("the key expired", WITHIN, () -> clientOne.getKeys().countExists(prefix + "blocks") == 0);
    }
}
