package io.github.ratelimit.redis.tokens;

import io.github.ratelimit.fixtures.SharedCluster;
import io.github.ratelimit.test.support.RedisTopology;

/** The single-use token promises on a real Redis Cluster of three masters with replicas. */
class ClusterSingleUseTokensTest extends SingleUseTokensContract {

    @Override
    RedisTopology topology() {
        return SharedCluster.get();
    }
}
