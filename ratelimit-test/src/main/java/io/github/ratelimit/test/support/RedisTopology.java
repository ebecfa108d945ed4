package io.github.ratelimit.test.support;

import org.redisson.api.RedissonClient;

/** Where contract tests run: a single redis-server, or a Redis Cluster. */
public interface RedisTopology {

    /** A new client, as one more application instance would have. */
    RedissonClient newClient();
}
