package io.github.ratelimit.sample;

import io.github.ratelimit.sample.kotlin.KotlinSampleApplication;
import io.github.ratelimit.test.support.NoBlockingCalls;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Kotlin sample takes new limits without a restart, and no event-loop thread blocks while it does. */
@ExtendWith(NoBlockingCalls.class)
class KotlinRefreshTest extends RefreshContract {

    @Override
    Class<?> application() {
        return KotlinSampleApplication.class;
    }
}
