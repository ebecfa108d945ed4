package io.github.ratelimit.redis.limits;

import io.github.ratelimit.fixtures.SharedCluster;
import io.github.ratelimit.test.support.RedisTopology;

/** The SPI test kit on a real Redis Cluster of three masters with replicas. */
class TestKitOnClusterTest extends TestKitOnRedis {

    @Override
    RedisTopology topology() {
        return SharedCluster.get();
    }
}
