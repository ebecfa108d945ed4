package io.github.ratelimit.redis;

import io.github.ratelimit.testing.RedisTopology;
import io.github.ratelimit.testing.SharedCluster;

/** The rate limiter's promises on a real Redis Cluster of three masters with replicas. */
class ClusterRateLimiterTest extends RateLimiterContract {

    @Override
    RedisTopology topology() {
        return SharedCluster.get();
    }
}
