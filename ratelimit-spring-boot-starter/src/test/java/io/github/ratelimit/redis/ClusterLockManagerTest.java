package io.github.ratelimit.redis;

import io.github.ratelimit.testing.RedisTopology;
import io.github.ratelimit.testing.SharedCluster;

/** The lock promises on a real Redis Cluster of three masters with replicas. */
class ClusterLockManagerTest extends LockManagerContract {

    @Override
    RedisTopology topology() {
        return SharedCluster.get();
    }
}
