package io.github.ratelimit.sample;

import io.github.ratelimit.sample.reactive.ReactiveSampleApplication;
import io.github.ratelimit.test.support.NoBlockingCalls;
import org.junit.jupiter.api.extension.ExtendWith;

/** Two reactive sample apps sharing one Redis. */
@ExtendWith(NoBlockingCalls.class)
class ReactiveTwoInstancesTest extends TwoInstancesContract {

    @Override
    Class<?> application() {
        return ReactiveSampleApplication.class;
    }
}
