package io.github.ratelimit.redis.limits;

import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.support.RedisTopology;

/** Calendar quotas, penalties and shared budgets on one Redis. */
class ProductLimitsOnOneRedisTest extends ProductLimitsContract {

    @Override
    RedisTopology topology() {
        return SharedRedis.get();
    }
}
