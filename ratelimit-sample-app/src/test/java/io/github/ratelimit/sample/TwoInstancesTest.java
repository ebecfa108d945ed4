package io.github.ratelimit.sample;

/** Two servlet sample apps sharing one Redis. */
class TwoInstancesTest extends TwoInstancesContract {

    @Override
    Class<?> application() {
        return SampleApplication.class;
    }
}
