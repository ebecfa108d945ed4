package io.github.ratelimit.autoconfigure.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.limits.RedisBlocks;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.endpoint.RateLimitOperations;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

/**
 * The endpoint's write operations (blocks), on a real Redis: off unless enabled (403), bad input a 400 naming what was
 * wrong with nothing stored, and a block set and lifted by name of key and value.
 */
class OperatorWritesTests {

    private RedissonClient client;
    private RedisBlocks blocks;

    @BeforeEach
    void start() {
        client = SharedRedis.get().newClient();
        blocks = new RedisBlocks(
                client,
                new io.github.ratelimit.redis.RedisGuard(
                        java.time.Duration.ofSeconds(5), 5, java.time.Duration.ofSeconds(1)),
                "writes-" + UUID.randomUUID() + ":",
                Duration.ofMinutes(1));
        blocks.start();
    }

    @AfterEach
    void stop() {
        blocks.close();
        client.shutdown();
    }

    private RateLimitsEndpoint endpoint(boolean writeEnabled) {
        return endpoint(writeEnabled, null);
    }

    private RateLimitsEndpoint endpoint(boolean writeEnabled, io.github.ratelimit.core.locks.LockManager locks) {
        RateLimitOperations operations = new RateLimitOperations(
                new StaticListableBeanFactory().getBeanProvider(DeclaredLimits.class),
                requests -> {
                    throw new AssertionError("nothing is decided here");
                },
                false,
                Plans.NONE,
                () -> blocks,
                () -> null,
                writeEnabled,
                Duration.ofHours(1),
                () -> locks);
        return new RateLimitsEndpoint(
                operations,
                new io.github.ratelimit.spring.endpoint.AdaptiveLimitOperations(
                        new StaticListableBeanFactory()
                                .getBeanProvider(io.github.ratelimit.spring.aop.AdvisorDeclarations.class),
                        () -> null,
                        writeEnabled,
                        operations.events()));
    }

    /**
     * Locks through the endpoint: releasing is a write (403 unless enabled); a lock manager that cannot list or release
     * its locks answers 404 saying so, not a server error.
     */
    @Test
    void locksAreReleasedOnlyWhenWritesAreOnAndAManagerThatCannotListIsA404() {
        io.github.ratelimit.core.locks.LockManager cannotList = (key, options) -> {
            throw new AssertionError("nothing is locked here");
        };
        RateLimitsEndpoint off = endpoint(false, cannotList);
        assertThat(off.removeOverride("locks", "digest", null, null, null, null).getStatus())
                .isEqualTo(403);
        RateLimitsEndpoint on = endpoint(true, cannotList);
        assertThat(on.state("locks", null, null, null).getStatus()).isEqualTo(404);
        assertThat(on.state("locks", null, null, null).getBody().get("error").toString())
                .contains("cannot list its locks");
        assertThat(on.removeOverride("locks", "digest", null, null, null, null).getStatus())
                .isEqualTo(404);
        assertThat(endpoint(true).state("locks", null, null, null).getBody().get("error"))
                .isEqualTo("this application has no lock manager");
    }

    @Test
    void writesAreOffUnlessEnabled() {
        RateLimitsEndpoint endpoint = endpoint(false);
        assertThat(endpoint.write("blocks", "ip", "203.0.113.70", "30s", null).getStatus())
                .isEqualTo(403);
        assertThat(endpoint.reset("blocks", "ip", "203.0.113.70", null).getStatus())
                .isEqualTo(403);
        assertThat(blocks.list()).isEmpty();
    }

    @Test
    void badInputIsA400NamingWhatWasWrongAndStoresNothing() {
        RateLimitsEndpoint endpoint = endpoint(true);
        assertThat(endpoint.write("blocks", null, "203.0.113.70", "30s", null)
                        .getBody()
                        .get("error"))
                .asString()
                .contains("key and value");
        assertThat(endpoint.write("blocks", "ip", "203.0.113.70", "abc", null)
                        .getBody()
                        .get("error"))
                .asString()
                .contains("duration must be a duration")
                .contains("'abc'");
        assertThat(endpoint.write("blocks", "ip", "203.0.113.70", "2h", null)
                        .getBody()
                        .get("error"))
                .asString()
                .contains("ratelimit.actuator.max-block");
        assertThat(endpoint.write("blocks", "ip", "x".repeat(300), "30s", null).getStatus())
                .isEqualTo(400);
        assertThat(endpoint.write("overrides", "ip", "203.0.113.70", "30s", null)
                        .getStatus())
                .isEqualTo(404);
        assertThat(blocks.list()).isEmpty();
    }

    @Test
    void aBlockIsSetAndLiftedByKeyAndValue() {
        RateLimitsEndpoint endpoint = endpoint(true);
        assertThat(endpoint.write("blocks", "Header:X-Api-Key", "k-9", "10m", null)
                        .getStatus())
                .isEqualTo(204);
        assertThat(blocks.blockedFor(ClientIdentifier.of("header:x-api-key", "k-9")))
                .isBetween(Duration.ofMinutes(9), Duration.ofMinutes(10));
        assertThat(endpoint.limits()).containsKey("blocks");
        assertThat(endpoint.reset("blocks", "header:x-api-key", "k-9", null).getStatus())
                .isEqualTo(204);
        assertThat(blocks.blockedFor(ClientIdentifier.of("header:x-api-key", "k-9")))
                .isNull();
    }
}
