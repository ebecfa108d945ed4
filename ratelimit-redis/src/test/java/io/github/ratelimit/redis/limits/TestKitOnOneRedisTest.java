package io.github.ratelimit.redis.limits;

import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.support.RedisTopology;

/** The SPI test kit on one redis-server. */
class TestKitOnOneRedisTest extends TestKitOnRedis {

    @Override
    RedisTopology topology() {
        return SharedRedis.get();
    }
}
