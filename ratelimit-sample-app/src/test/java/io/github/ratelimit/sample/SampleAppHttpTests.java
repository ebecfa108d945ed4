package io.github.ratelimit.sample;

import io.github.ratelimit.test.EmbeddedRedis;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The servlet sample app, started for real on a random port, answers its HTTP contract; its Redis comes from the test
 * support ({@code @EmbeddedRedis}, counts cleared after each test), as a user's own tests would have it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.embedded-redis=false")
@EmbeddedRedis
class SampleAppHttpTests extends SampleHttpContract {}
