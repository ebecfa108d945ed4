package io.github.ratelimit.sample;

/** The servlet sample takes new limits without a restart. */
class RefreshTest extends RefreshContract {

    @Override
    Class<?> application() {
        return SampleApplication.class;
    }
}
