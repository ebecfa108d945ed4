package io.github.ratelimit.sample;

import io.github.ratelimit.test.support.RedisClusterProcess;
import java.util.List;

/** The mixed-version contract on a Redis Cluster of three masters and their replicas. */
class MixedVersionsOnClusterTest extends MixedVersionsContract {

    private RedisClusterProcess cluster;

    @Override
    List<String> startRedis() {
        cluster = RedisClusterProcess.start();
        return List.of("--sample.embedded-redis=false", "--spring.data.redis.cluster.nodes=" + cluster.nodes());
    }

    @Override
    void stopRedis() {
        if (cluster != null) {
            cluster.close();
        }
    }
}
