package io.github.ratelimit.sample;

import io.github.ratelimit.sample.reactive.ReactiveSampleApplication;
import io.github.ratelimit.test.support.NoBlockingCalls;
import org.junit.jupiter.api.extension.ExtendWith;

/** The reactive sample takes new limits without a restart, and no event-loop thread blocks while it does. */
@ExtendWith(NoBlockingCalls.class)
class ReactiveRefreshTest extends RefreshContract {

    @Override
    Class<?> application() {
        return ReactiveSampleApplication.class;
    }
}
