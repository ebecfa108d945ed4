package io.github.ratelimit.sample;

import io.github.ratelimit.sample.reactive.ReactiveSampleApplication;
import io.github.ratelimit.test.support.NoBlockingCalls;
import org.junit.jupiter.api.extension.ExtendWith;

/** Two reactive sample apps while their Redis is killed, then frozen. */
@ExtendWith(NoBlockingCalls.class)
class ReactiveRedisOutageTest extends RedisOutageContract {

    @Override
    Class<?> application() {
        return ReactiveSampleApplication.class;
    }
}
