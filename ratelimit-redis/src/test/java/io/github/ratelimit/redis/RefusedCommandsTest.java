package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import io.github.ratelimit.test.support.RawRedis;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.slf4j.LoggerFactory;

/**
 * A Redis whose ACL refuses the limiter's scripts ({@code -@scripting}), as the Lua CVEs' workaround has operators do:
 * the refusal is named once at WARN (what, for which user, the rule that allows it), the health details say Redis
 * refused the commands on a working connection, calls are answered as in an outage with nothing sent, and once the ACL
 * allows the scripts the limiter decides on Redis again, without a restart.
 */
class RefusedCommandsTest {

    static final String PASSWORD = "s3cret";

    RedisProcess redis;
    RedissonClient client;
    RedisGuard guard;
    RedisConnector connector;
    final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    final Logger outageLog = (Logger) LoggerFactory.getLogger(RedisGuard.class);

    @BeforeEach
    void start() {
        redis = RedisProcess.start();
        assertThat(RawRedis.command(
                        redis.port(),
                        "ACL",
                        "SETUSER",
                        "limiter",
                        "on",
                        ">" + PASSWORD,
                        "~*",
                        "&*",
                        "+@all",
                        "-@scripting"))
                .startsWith("+OK");
        logged.start();
        outageLog.addAppender(logged);
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.setUsername("limiter").setPassword(PASSWORD);
        config.useSingleServer().setAddress(redis.url());
        client = Redisson.create(config);
        guard = RedisGuard.awaitingConnection(redis.url(), Duration.ofSeconds(2), 5, Duration.ofSeconds(1));
        connector = new RedisConnector(client, guard, Duration.ofSeconds(2), Duration.ofMillis(100), List.of());
        connector.start();
    }

    /**
     * Scripts allowed, channels refused ({@code resetchannels}, the default of a new user since Redis 7.0): the lock
     * still works (nothing is lost, no thread waits for the subscription), and the refused channel is named once at
     * WARN with the rule that allows it.
     */
    @Test
    void aRefusedSubscriptionIsNamedOnceAndTheLockStillWorks() throws InterruptedException {
        assertThat(RawRedis.command(redis.port(), "ACL", "SETUSER", "limiter", "+@scripting", "resetchannels"))
                .startsWith("+OK");
        ListAppender<ILoggingEvent> told = new ListAppender<>();
        Logger refusals = (Logger) LoggerFactory.getLogger(io.github.ratelimit.redis.internal.AclRefusals.class);
        told.start();
        refusals.addAppender(told);
        try {
            assertThat(connector.awaitConnected(Duration.ofSeconds(30))).isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            RedisLockManager locks = new RedisLockManager(client, "acl:", guard);
            try (var held = locks.tryAcquire("channels", LockOptions.lease(Duration.ofSeconds(5)))) {
                assertThat(held.isHeld()).isTrue(); // the subscription to revocations is made, and refused
            }
            String channel = "acl:lock-revoked";
            while (told.list.isEmpty() && System.nanoTime() - deadline < 0) {
                Thread.sleep(10); // told once Redisson's subscription timed out (7.5 s) and a publish was refused
            }
            assertThat(told.list).hasSize(1);
            assertThat(told.list.get(0).getLevel()).isEqualTo(Level.WARN);
            assertThat(told.list.get(0).getFormattedMessage())
                    .startsWith("Redis refuses user 'limiter' the subscription to channel '" + channel + "' (NOPERM")
                    .contains("allow it with ACL SETUSER limiter &" + channel + " ")
                    .endsWith("until then, a holder whose lock an operator frees learns of it at its next renewal,"
                            + " not at once");
            try (var again = locks.tryAcquire("channels", LockOptions.lease(Duration.ofSeconds(5)))) {
                assertThat(again.isHeld()).isTrue();
            }
            assertThat(told.list).as("once per channel").hasSize(1);
            locks.close();
        } finally {
            refusals.detachAppender(told);
        }
    }

    /**
     * The ACL changes while the limiter runs: a refused script is a failed call, answered as in an outage and named
     * (never a token used twice), and the limiter decides on Redis again once the ACL allows it.
     */
    @Test
    void anAclChangedAtRunTimeIsAnsweredAsAnOutage() throws InterruptedException {
        assertThat(RawRedis.command(redis.port(), "ACL", "SETUSER", "limiter", "+@scripting"))
                .startsWith("+OK");
        assertThat(connector.awaitConnected(Duration.ofSeconds(30))).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        RedisSingleUseTokens tokens = new RedisSingleUseTokens(client, "ratelimit", guard);
        IssuedToken issued = tokens.issue("runtime", Map.of(), Duration.ofMinutes(1));

        assertThat(RawRedis.command(redis.port(), "ACL", "SETUSER", "limiter", "-@scripting"))
                .startsWith("+OK");
        assertThatThrownBy(() -> tokens.consume("runtime", issued.token()))
                .isInstanceOf(RedisUnavailableException.class)
                .hasMessageStartingWith("Redis refuses the limiter's commands: NOPERM");

        assertThat(RawRedis.command(redis.port(), "ACL", "SETUSER", "limiter", "+@scripting"))
                .startsWith("+OK");
        while (System.nanoTime() - deadline < 0) {
            try {
                assertThat(tokens.consume("runtime", issued.token()).metadata()).isEmpty();
                break; // used once, after all
            } catch (RedisUnavailableException stillOpen) {
                Thread.sleep(10); // the guard lets a call through again after its open period (1 s)
            }
        }
        assertThat(tokens.consume("runtime", issued.token()).status())
                .isEqualTo(io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status.ALREADY_USED);
    }

    @AfterEach
    void stop() {
        outageLog.detachAppender(logged);
        connector.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
        redis.close();
    }

    @Test
    void aRefusedScriptIsNamedOnceAndAnsweredAsAnOutageUntilTheAclAllowsIt() throws InterruptedException {
        assertThat(connector.awaitFirstAttempt(Duration.ofSeconds(10))).isNotNull();

        // what was refused, for which user, and the rule that allows it (the command differs: evalsha_ro from 7.0)
        String refusal = guard.refusal();
        assertThat(refusal)
                .startsWith("user 'limiter' may not run a command the limiter sends (NOPERM")
                .containsPattern("allow it with ACL SETUSER limiter \\+eval(sha)?(_ro)?\\b");
        assertThat(guard.state()).isEqualTo(redis.url() + " (refuses the limiter's commands: " + refusal + ")");
        List<ILoggingEvent> warnings = logged.list.stream()
                .filter(event -> event.getLevel() == Level.WARN)
                .toList();
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0).getFormattedMessage())
                .isEqualTo("Redis " + redis.url() + " refuses the limiter's commands (" + refusal + "); until it"
                        + " allows them, rate limits follow their failure mode (local, open or closed), single-use"
                        + " tokens and locks answer 503 with Retry-After");

        // the connection works, and the details say what Redis refused
        assertThat(connector.health("in memory"))
                .containsEntry("connected", true)
                .containsEntry("refused", refusal)
                .containsEntry("degraded", true)
                .containsEntry("decisions", "in memory");

        // calls are answered as during an outage, and none was sent: nothing taken, nothing to lose
        RedisSingleUseTokens tokens = new RedisSingleUseTokens(client, "ratelimit", guard);
        RedisLockManager locks = new RedisLockManager(client, "ratelimit", guard);
        assertThatThrownBy(() -> tokens.issue("refused", Map.of(), Duration.ofMinutes(1)))
                .isInstanceOf(RedisUnavailableException.class)
                .hasMessage("Redis " + redis.url() + " refuses the limiter's commands: " + refusal);
        assertThatThrownBy(() -> locks.tryAcquire("refused", LockOptions.lease(Duration.ofSeconds(5))))
                .isInstanceOf(RedisUnavailableException.class);
        assertThat(RawRedis.command(redis.port(), "DBSIZE").trim()).isEqualTo(":0");
        assertThat(logged.list.stream().filter(event -> event.getLevel() == Level.WARN))
                .as("the refusal is logged once, however often it is tried")
                .hasSize(1);

        // the operator allows the scripts: the next attempt connects, and the limiter decides on Redis again
        assertThat(RawRedis.command(redis.port(), "ACL", "SETUSER", "limiter", "+@scripting"))
                .startsWith("+OK");
        assertThat(connector.awaitConnected(Duration.ofSeconds(10))).isTrue(); // its next attempt, 100 ms on
        assertThat(guard.isConnected()).isTrue();
        assertThat(guard.refusal()).isNull();
        IssuedToken token = tokens.issue("allowed", Map.of("k", "v"), Duration.ofMinutes(1));
        assertThat(tokens.consume("allowed", token.token()).metadata()).isEqualTo(Map.of("k", "v"));
        assertThat(connector.health("in memory"))
                .containsEntry("degraded", false)
                .doesNotContainKey("refused");
    }
}
