package io.github.ratelimit.redis.limits;

import io.github.ratelimit.test.support.RedisTopology;
import io.github.ratelimit.test.support.SharedRedis;

/** Calendar quotas, penalties and shared budgets on one Redis. */
class ProductLimitsOnOneRedisTest extends ProductLimitsContract {

    @Override
    RedisTopology topology() {
        return SharedRedis.get();
    }
}
