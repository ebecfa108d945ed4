package io.github.ratelimit.sample;

import io.github.ratelimit.sample.reactive.ReactiveSampleApplication;

/** Two reactive sample apps, each in a fresh JVM, sharing one Redis. */
class ReactiveFreshInstancesTest extends FreshInstancesContract {

    @Override
    Class<?> application() {
        return ReactiveSampleApplication.class;
    }
}
