package io.github.ratelimit.sample;

import io.github.ratelimit.sample.kotlin.KotlinSampleApplication;
import io.github.ratelimit.test.EmbeddedRedis;
import io.github.ratelimit.test.support.NoBlockingCalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The Kotlin sample app, every annotated handler a {@code suspend fun}, started for real on Reactor Netty on a random
 * port, answers the same HTTP contract as the other samples, and no event-loop thread blocks while it does.
 */
@SpringBootTest(
        classes = KotlinSampleApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "sample.embedded-redis=false")
@EmbeddedRedis
@ExtendWith(NoBlockingCalls.class)
class KotlinSampleHttpTests extends SampleHttpContract {

    /** A client that hangs up while its worker's coroutine runs cancels the coroutine, and that releases the lock. */
    @Test
    void aClientThatHangsUpReleasesItsWorkersLock() throws Exception {
        assertHangingUpReleasesTheWorkersLock();
    }
}
