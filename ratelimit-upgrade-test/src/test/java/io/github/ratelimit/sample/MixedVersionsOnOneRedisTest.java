package io.github.ratelimit.sample;

import io.github.ratelimit.test.support.RedisProcess;
import java.util.List;

/** The mixed-version contract on a single redis-server. */
class MixedVersionsOnOneRedisTest extends MixedVersionsContract {

    private RedisProcess redis;

    @Override
    List<String> startRedis() {
        redis = RedisProcess.start();
        return List.of("--spring.data.redis.url=redis://127.0.0.1:" + redis.port());
    }

    @Override
    void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }
}
