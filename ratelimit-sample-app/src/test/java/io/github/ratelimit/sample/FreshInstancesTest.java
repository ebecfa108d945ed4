package io.github.ratelimit.sample;

/** Two servlet sample apps, each in a fresh JVM, sharing one Redis. */
class FreshInstancesTest extends FreshInstancesContract {

    @Override
    Class<?> application() {
        return SampleApplication.class;
    }
}
