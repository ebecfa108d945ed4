package io.github.ratelimit.redis.locks;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokensTest;
import io.github.ratelimit.test.support.RedisProcess;
import io.github.ratelimit.test.support.RedisTopology;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Locks on a single Redis (with AOF), plus what needs a single server: a crash and restart. */
class RedisLockManagerTest extends LockManagerContract {

    static RedisProcess redis = RedisProcess.start(List.of("appendonly yes", "appendfsync always"));

    @Override
    RedisTopology topology() {
        return redis;
    }

    @AfterAll
    void stopRedis() {
        redis.close();
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossARedisCrashWithAof() {
        String key = key();
        long before;
        try (LockHandle lock = locksA.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5)))) {
            before = lock.fencingToken();
        }

        redis.crashAndRestart();
        RedisSingleUseTokensTest.awaitReconnected(clientA);

        try (LockHandle lock = locksA.tryAcquire(key, LockOptions.lease(Duration.ofSeconds(5)))) {
            assertThat(lock.fencingToken()).isGreaterThan(before);
        }
    }
}
