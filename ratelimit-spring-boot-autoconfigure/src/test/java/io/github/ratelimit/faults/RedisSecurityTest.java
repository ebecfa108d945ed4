package io.github.ratelimit.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.fixtures.Causes;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.test.support.RawRedis;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** An ACL user with only what the scripts need, wrong credentials, and the eviction-policy warning. */
@ExtendWith(OutputCaptureExtension.class)
class RedisSecurityTest {

    /** The least-privilege ACL documented in docs/reference.md, for Redis 6.2. */
    static final String ACL =
            "on >s3cret ~ratelimit:* resetchannels &ratelimit:* +ping +evalsha +eval +script|load +subscribe +unsubscribe"
                    + " +time +get +set +getrange +setrange +pexpire +pttl +incrby +exists +del +hset +hget +hmget +hincrby"
                    + " +hgetall +hdel +sadd +sismember +zadd +zrem +zcard +zrange +zscore +zremrangebyscore +publish"
                    + " +wait +info";

    /**
     * What Redis 7.0 and later (and Valkey) need besides: the read-only script commands, which Redisson sends for the
     * scripts that only read (6.2 has neither, and refuses an ACL that names them).
     */
    static final String ACL_7 = " +evalsha_ro +eval_ro";

    static RedisProcess redis;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start(List.of("maxmemory 512mb", "maxmemory-policy allkeys-lru"));
        List<String> command = new java.util.ArrayList<>(List.of("ACL", "SETUSER", "limiter", "reset"));
        command.addAll(List.of((ACL + (majorVersion(redis.port()) >= 7 ? ACL_7 : "")).split(" ")));
        assertThat(RawRedis.command(redis.port(), command.toArray(String[]::new)))
                .startsWith("+OK");
    }

    /** The server's major version as it reports it ({@code redis_version}; Valkey 8 reports 7.2.4 there too). */
    static int majorVersion(int port) {
        String info = RawRedis.command(port, "INFO", "server");
        java.util.regex.Matcher version =
                java.util.regex.Pattern.compile("redis_version:(\\d+)\\.").matcher(info);
        assertThat(version.find()).as("INFO server names redis_version").isTrue();
        return Integer.parseInt(version.group(1));
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    ApplicationContextRunner runner(String url) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=" + url, "ratelimit.redis.timeout=2s");
    }

    @Test
    void theDocumentedAclSufficesForLimitsTokensLocksAndConcurrencyLimits() {
        runner("redis://limiter:s3cret@127.0.0.1:" + redis.port()).run(context -> {
            assertThat(context).hasNotFailed();
            RateLimit limit = RateLimit.of("acl", Algorithm.SLIDING_WINDOW, 2, 60_000);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            for (Algorithm algorithm : Algorithm.values()) {
                RateLimit each = RateLimit.of("acl", algorithm, 2, 60_000);
                assertThat(limiter.tryAcquire(List.of(LimitRequest.of(each, "u", 1)))
                                .allowed())
                        .isTrue();
            }
            assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, "u", 1)))
                            .allowed())
                    .isTrue();
            assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, "u", 1)))
                            .allowed())
                    .isFalse();

            SingleUseTokens tokens = context.getBean(SingleUseTokens.class);
            IssuedToken token = tokens.issue("acl", Map.of("k", "v"), Duration.ofMinutes(1));
            assertThat(tokens.consume("acl", token.token()).metadata()).isEqualTo(Map.of("k", "v"));
            assertThat(tokens.release("acl", token.token())).isTrue();

            LockManager locks = context.getBean(LockManager.class);
            LockHandle held = locks.tryAcquire("acl-job", LockOptions.lease(Duration.ofSeconds(5)));
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
                try (LockHandle next = locks.tryAcquire(
                        "acl-job", LockOptions.lease(Duration.ofSeconds(5)).waitingUpTo(Duration.ofSeconds(5)))) {
                    return next.fencingToken();
                }
            });
            held.release();
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());

            ConcurrencyLimiter slots = context.getBean(ConcurrencyLimiter.class);
            Duration lease = Duration.ofSeconds(5);
            ConcurrencyLimiter.Permit slot = slots.tryAcquire("acl", ClientIdentifier.of("u"), 1, lease, lease);
            assertThatThrownBy(() -> slots.tryAcquire("acl", ClientIdentifier.of("u"), 1, lease, lease))
                    .isInstanceOf(ConcurrencyLimitExceededException.class);
            assertThat(slot.release()).isTrue();

            AdaptiveConcurrencyLimiter adaptive = context.getBean(AdaptiveConcurrencyLimiter.class);
            AdaptiveSettings one = new AdaptiveSettings(1, 1, 1, 2.0, Duration.ofMillis(100));
            AdaptiveConcurrencyLimiter.AdaptivePermit taken =
                    adaptive.tryAcquire("acl", ClientIdentifier.of("u"), one, lease, lease);
            assertThatThrownBy(() -> adaptive.tryAcquire("acl", ClientIdentifier.of("u"), one, lease, lease))
                    .isInstanceOf(ConcurrencyLimitExceededException.class);
            assertThat(taken.release()).isTrue();
        });
    }

    @Test
    void wrongCredentialsStartWithAWarningNamingThePropertyAndAnswerWithTheFallback(CapturedOutput output) {
        long started = System.nanoTime();
        runner("redis://limiter:wrong@127.0.0.1:" + redis.port()).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RedisGuard.class).isConnected()).isFalse();
            assertThatThrownBy(
                            () -> context.getBean(SingleUseTokens.class).issue("acl", Map.of(), Duration.ofMinutes(1)))
                    .isInstanceOf(RedisUnavailableException.class);
        });
        assertThat(output)
                .contains("refused the credentials")
                .contains("WRONGPASS")
                .contains("spring.data.redis.password");
        assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(10_000);
    }

    @Test
    void wrongCredentialsFailTheStartLoudlyWhenRedisIsRequiredAtStartup() {
        runner("redis://limiter:wrong@127.0.0.1:" + redis.port())
                .withPropertyValues("ratelimit.redis.require-at-startup=true")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(Causes.messages(context.getStartupFailure())).containsIgnoringCase("WRONGPASS");
                });
    }

    @Test
    void warnsWhenRedisMayEvictOurKeys(CapturedOutput output) {
        runner("redis://127.0.0.1:" + redis.port())
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("maxmemory-policy allkeys-lru");
    }
}
