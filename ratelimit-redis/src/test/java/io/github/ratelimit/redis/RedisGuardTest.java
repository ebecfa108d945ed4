package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.RedisUnavailableException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The breaker's arithmetic: what a refused caller is told to wait follows open-for, not a fixed second. */
class RedisGuardTest {

    private static RedisUnavailableException fail(RedisGuard guard) {
        try {
            guard.call(() -> CompletableFuture.failedFuture(new IllegalStateException("connection reset")));
        } catch (RedisUnavailableException e) {
            return e;
        }
        throw new AssertionError("the call did not fail");
    }

    @Test
    void retryAfterWhileOpenIsWhatIsLeftOfOpenFor() {
        RedisGuard guard = new RedisGuard(Duration.ofMillis(200), 2, Duration.ofSeconds(30));
        assertThat(fail(guard).retryAfter()).isEqualTo(Duration.ofSeconds(1));
        RedisUnavailableException opening = fail(guard);
        assertThat(opening.retryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(guard.isOpen()).isTrue();
        RedisUnavailableException whileOpen = fail(guard);
        assertThat(whileOpen.retryAfter())
                .isGreaterThan(Duration.ofSeconds(25))
                .isLessThanOrEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void aGuardWaitingForItsFirstConnectionRefusesAtOnceWithoutCalling() {
        RedisGuard guard =
                RedisGuard.awaitingConnection("redis://127.0.0.1:1", Duration.ofMillis(200), 5, Duration.ofSeconds(1));
        assertThatThrownBy(() -> guard.call(() -> {
                    throw new AssertionError("Redis must not be called before the first connection");
                }))
                .isInstanceOf(RedisUnavailableException.class)
                .hasMessageContaining("not connected yet");
        guard.connected();
        assertThat(guard.<String>call(() -> CompletableFuture.completedFuture("ok")))
                .isEqualTo("ok");
    }
}
