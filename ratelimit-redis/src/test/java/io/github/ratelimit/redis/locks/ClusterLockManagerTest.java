package io.github.ratelimit.redis.locks;

import io.github.ratelimit.fixtures.SharedCluster;
import io.github.ratelimit.test.support.RedisTopology;

/** The lock promises on a real Redis Cluster of three masters with replicas. */
class ClusterLockManagerTest extends LockManagerContract {

    @Override
    RedisTopology topology() {
        return SharedCluster.get();
    }
}
