package io.github.ratelimit.sample;

import io.github.ratelimit.sample.reactive.ReactiveSampleApplication;
import io.github.ratelimit.test.support.NoBlockingCalls;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The reactive sample app starts and serves with Redis not running (every answer within the budget, no thread
 * blocked), and with rate limits switched off.
 */
@ExtendWith(NoBlockingCalls.class)
class ReactiveWithoutRedisHttpTests {

    @Nested
    @SpringBootTest(
            classes = ReactiveSampleApplication.class,
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {
                "sample.embedded-redis=false",
                "spring.data.redis.url=redis://127.0.0.1:1",
                "management.endpoint.health.probes.enabled=true"
            })
    class RedisNotRunning extends RedisNotRunningContract {}

    @Nested
    @SpringBootTest(
            classes = ReactiveSampleApplication.class,
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = "ratelimit.enabled=false")
    class RateLimitsOff extends RateLimitsOffContract {}
}
