package io.github.ratelimit.redis.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * The give-back of a token's use names the attempt that took it, on a real Redis: it gives back that attempt's use and
 * no other, once however often it is sent, and an attempt given back before it ran (its command still on the way)
 * takes nothing when it runs.
 */
class TokenGiveBackTest {

    private RedissonClient client;
    private RedisSingleUseTokens tokens;
    private ScriptExecutor executor;
    private final String prefix = "giveback-" + UUID.randomUUID() + ":";

    @BeforeEach
    void start() {
        client = SharedRedis.get().newClient();
        tokens = new RedisSingleUseTokens(client, prefix, Guards.patient(), Duration.ZERO);
        executor = new ScriptExecutor(client, Guards.patient());
    }

    @AfterEach
    void stop() {
        client.shutdown();
    }

    private long run(LuaScript script, IssuedToken token, String attempt) {
        List<Object> key = List.of(new RedisKeys(prefix).tokenKey(token.purpose(), token.token()));
        return ScriptExecutor.number(
                executor.call(script, key, new Object[] {attempt}).get(0));
    }

    @Test
    void aGiveBackReturnsItsAttemptsUseOnceAndNeverAnothers() {
        IssuedToken token = tokens.issue("invite", Map.of(), Duration.ofMinutes(1), 2);
        assertThat(run(RedisSingleUseTokens.CONSUME, token, "a1")).isEqualTo(1);
        assertThat(run(RedisSingleUseTokens.CONSUME, token, "a2")).isEqualTo(1);
        assertThat(run(RedisSingleUseTokens.CONSUME, token, "a3"))
                .as("both uses taken")
                .isEqualTo(-1);

        assertThat(run(RedisSingleUseTokens.GIVE_BACK, token, "a3"))
                .as("a3 took nothing")
                .isZero();
        assertThat(run(RedisSingleUseTokens.GIVE_BACK, token, "a1")).isEqualTo(1);
        assertThat(run(RedisSingleUseTokens.GIVE_BACK, token, "a1"))
                .as("sent again")
                .isZero();

        assertThat(tokens.consume("invite", token.token()).status()).isEqualTo(Status.CONSUMED);
        assertThat(tokens.consume("invite", token.token()).status())
                .as("a2's use was never given back")
                .isEqualTo(Status.ALREADY_USED);
    }

    @Test
    void anAttemptGivenBackBeforeItRunsTakesNothing() {
        IssuedToken token = tokens.issue("invite", Map.of(), Duration.ofMinutes(1), 1);
        assertThat(run(RedisSingleUseTokens.GIVE_BACK, token, "late")).isZero();
        assertThat(run(RedisSingleUseTokens.CONSUME, token, "late"))
                .as("cancelled")
                .isEqualTo(-2);

        assertThat(tokens.consume("invite", token.token()).status()).isEqualTo(Status.CONSUMED);
        assertThat(tokens.consume("invite", token.token()).status()).isEqualTo(Status.ALREADY_USED);
    }

    @Test
    void aGiveBackForATokenThatIsGoneWritesNothing() {
        IssuedToken token = tokens.issue("invite", Map.of(), Duration.ofMinutes(1), 1);
        String key = new RedisKeys(prefix).tokenKey(token.purpose(), token.token());
        client.getKeys().delete(key);
        assertThat(run(RedisSingleUseTokens.GIVE_BACK, token, "any")).isZero();
        assertThat(client.getKeys().countExists(key)).isZero();
    }
}
