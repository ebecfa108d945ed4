package io.github.ratelimit.redis.limits;

import io.github.ratelimit.fixtures.SharedCluster;
import io.github.ratelimit.test.support.RedisTopology;

/** The rate limiter's promises on a real Redis Cluster of three masters with replicas. */
class ClusterRateLimiterTest extends RateLimiterContract {

    @Override
    RedisTopology topology() {
        return SharedCluster.get();
    }
}
