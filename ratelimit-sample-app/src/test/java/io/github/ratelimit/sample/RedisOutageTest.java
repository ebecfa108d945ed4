package io.github.ratelimit.sample;

/** Two servlet sample apps while their Redis is killed, then frozen. */
class RedisOutageTest extends RedisOutageContract {

    @Override
    Class<?> application() {
        return SampleApplication.class;
    }
}
