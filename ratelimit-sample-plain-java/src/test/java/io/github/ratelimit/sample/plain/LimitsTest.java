package io.github.ratelimit.sample.plain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import io.github.ratelimit.decision.RateLimitDecisions.Admitted;
import io.github.ratelimit.decision.RateLimitDecisions.Outcome;
import io.github.ratelimit.decision.RateLimitDecisions.Refused;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The README's plain-Java example, run as it is written: on a real Redis, and with no Redis at all. */
class LimitsTest {

    static final RedisProcess redis = RedisProcess.start();

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    /**
     * Made as a program makes it and used at once: the constructor waits for the first connection, so its first calls
     * are decided by Redis (a token consumed there, not "unavailable"), however slow the machine is at connecting.
     */
    static Limits connected(String url) {
        Limits limits = new Limits(url);
        assertThat(limits.tokens().consume("probe", "A".repeat(32)).status()).isEqualTo(Status.UNKNOWN);
        return limits;
    }

    @Test
    void theSeedsLimitAdmitsTenPerSecondPerAddressAndPerUserAcrossInstances() {
        String ip = "10.0.0.1";
        String alice = "alice-" + UUID.randomUUID();
        try (Limits one = connected(redis.url());
                Limits other = connected(redis.url())) {
            int admitted = 0;
            for (int i = 0; i < 15; i++) {
                Outcome outcome = (i % 2 == 0 ? one : other).search(ip, alice);
                assertThat(outcome).isInstanceOfAny(Admitted.class, Refused.class); // decided by Redis
                admitted += outcome.refusal() == null ? 1 : 0;
            }
            assertThat(admitted).isEqualTo(10);

            Outcome bobOnTheSameAddress = one.search(ip, "bob-" + UUID.randomUUID());
            assertThat(bobOnTheSameAddress.refusal())
                    .isInstanceOfSatisfying(RateLimitExceededException.class, refused -> assertThat(
                                    refused.decision().retryAfter())
                            .isPositive()
                            .isLessThanOrEqualTo(Duration.ofSeconds(1)));
            assertThat(other.search("10.0.0.2", "carol").refusal()).isNull();
        }
    }

    @Test
    void aTokenWorksOnceAndALockHasOneHolder() {
        try (Limits one = connected(redis.url());
                Limits other = connected(redis.url())) {
            IssuedToken issued = one.tokens().issue("reset-password", Map.of("user", "42"), Duration.ofMinutes(10));
            assertThat(other.tokens().consume("reset-password", issued.token()).metadata())
                    .isEqualTo(Map.of("user", "42"));
            assertThat(one.tokens().consume("reset-password", issued.token()).status())
                    .isEqualTo(Status.ALREADY_USED);

            String key = "report:" + UUID.randomUUID();
            try (LockHandle lock = one.locks().tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10)))) {
                assertThat(lock.isHeld()).isTrue();
                assertThatThrownBy(() -> other.locks().tryAcquire(key, LockOptions.lease(Duration.ofSeconds(10))))
                        .isInstanceOf(LockNotAcquiredException.class);
            }
        }
    }

    /**
     * Redis comes after the program: {@code awaitRedis} waits for it, however many attempts it takes, and the first call
     * after it is decided by Redis.
     */
    @Test
    void aProgramWaitsForRedisThatComesLater() {
        int port = RedisProcess.freePort();
        try (Limits limits = new Limits("redis://127.0.0.1:" + port)) {
            assertThat(limits.awaitRedis(Duration.ofMillis(1))).isFalse();
            try (RedisProcess late = RedisProcess.startOn(port, java.util.List.of())) {
                assertThat(limits.awaitRedis(Duration.ofSeconds(30))).isTrue();
                IssuedToken issued = limits.tokens().issue("later", Map.of(), Duration.ofMinutes(1));
                assertThat(limits.tokens().consume("later", issued.token()).status())
                        .isEqualTo(Status.CONSUMED);
            }
        }
    }

    /**
     * Closed while its first attempt to connect hangs (a frozen Redis): the close waits for the attempt to end, and
     * neither the client's shutdown nor Netty logs a warning or a stack trace.
     */
    @Test
    void closingWhileConnectingIsQuiet() {
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        try (RedisProcess frozen = RedisProcess.start()) {
            frozen.freeze();
            try {
                Limits limits = new Limits(frozen.url()); // its first attempt is under way, unanswered
                logged.start();
                root.addAppender(logged);
                limits.close();
            } finally {
                root.detachAppender(logged);
                frozen.thaw();
            }
        }
        assertThat(logged.list)
                .filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.WARN) || event.getThrowableProxy() != null)
                .isEmpty();
    }

    /** Nothing listens on the port: the constructor returns, limits are decided in memory, tokens answer "unavailable". */
    @Test
    void withoutRedisItStartsAndDecidesInMemory() {
        try (Limits limits = new Limits("redis://127.0.0.1:" + RedisProcess.freePort())) {
            int admitted = 0;
            for (int i = 0; i < 15; i++) {
                admitted += limits.search("10.9.9.9", "dave").refusal() == null ? 1 : 0;
            }
            assertThat(admitted).isEqualTo(10);
            assertThatThrownBy(() -> limits.tokens().consume("reset-password", "A".repeat(32)))
                    .isInstanceOf(RedisUnavailableException.class)
                    .hasMessageStartingWith("Redis is not connected yet")
                    .hasMessageNotContaining("Redis Redis");
        }
    }
}
