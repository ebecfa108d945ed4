package io.github.ratelimit.redis.limits;

import io.github.ratelimit.fixtures.SharedCluster;
import io.github.ratelimit.test.support.RedisTopology;

/** Calendar quotas, penalties and shared budgets on a real Redis Cluster of three masters with replicas. */
class ProductLimitsOnClusterTest extends ProductLimitsContract {

    @Override
    RedisTopology topology() {
        return SharedCluster.get();
    }
}
