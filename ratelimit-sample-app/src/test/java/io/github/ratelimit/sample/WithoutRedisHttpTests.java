package io.github.ratelimit.sample;

import org.junit.jupiter.api.Nested;
import org.springframework.boot.test.context.SpringBootTest;

/** The servlet sample app starts and serves with Redis not running, and with rate limits switched off. */
class WithoutRedisHttpTests {

    @Nested
    @SpringBootTest(
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {
                "sample.embedded-redis=false",
                "spring.data.redis.url=redis://127.0.0.1:1",
                "management.endpoint.health.probes.enabled=true"
            })
    class RedisNotRunning extends RedisNotRunningContract {}

    @Nested
    @SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "ratelimit.enabled=false")
    class RateLimitsOff extends RateLimitsOffContract {}
}
