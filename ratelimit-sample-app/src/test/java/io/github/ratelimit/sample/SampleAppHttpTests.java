package io.github.ratelimit.sample;

import org.springframework.boot.test.context.SpringBootTest;

/** The servlet sample app, started for real (with its embedded Redis) on a random port, answers its HTTP contract. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleAppHttpTests extends SampleHttpContract {}
