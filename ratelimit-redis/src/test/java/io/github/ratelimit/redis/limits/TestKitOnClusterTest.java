package io.github.ratelimit.redis.limits;

import io.github.ratelimit.test.support.RedisTopology;
import io.github.ratelimit.test.support.SharedCluster;

/** The SPI test kit on a real Redis Cluster of three masters with replicas. */
class TestKitOnClusterTest extends TestKitOnRedis {

    @Override
    RedisTopology topology() {
        return SharedCluster.get();
    }
}
