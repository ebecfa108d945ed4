package io.github.ratelimit.sample;

import io.github.ratelimit.sample.reactive.ReactiveSampleApplication;
import org.junit.jupiter.api.Disabled;

/**
 * Two reactive sample apps, each in a fresh JVM, sharing one Redis. Disabled until it holds in every run: on a 2-core
 * machine the first burst still admits 6 or 7 of 40 in about one run of three (calls of the cold reactive server run out
 * of their budget inside the JVM and are decided in memory); see issue 33. Run it by hand with
 * {@code -Dtest=ReactiveFreshInstancesTest -Djunit.jupiter.conditions.deactivate=org.junit.*DisabledCondition}.
 */
@Disabled("the reactive first burst is not yet exact in every run on 2 cores (issue 33)")
class ReactiveFreshInstancesTest extends FreshInstancesContract {

    @Override
    Class<?> application() {
        return ReactiveSampleApplication.class;
    }
}
