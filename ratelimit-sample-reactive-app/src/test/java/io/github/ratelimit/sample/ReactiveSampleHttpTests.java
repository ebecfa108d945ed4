package io.github.ratelimit.sample;

import io.github.ratelimit.sample.reactive.ReactiveSampleApplication;
import io.github.ratelimit.test.EmbeddedRedis;
import io.github.ratelimit.test.support.NoBlockingCalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The reactive sample app, started for real on Reactor Netty (with its embedded Redis) on a random port, answers the
 * same HTTP contract as the servlet sample, and no event-loop thread blocks while it does.
 */
@SpringBootTest(
        classes = ReactiveSampleApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "sample.embedded-redis=false")
@EmbeddedRedis
@ExtendWith(NoBlockingCalls.class)
class ReactiveSampleHttpTests extends SampleHttpContract {

    /** A client that hangs up while its worker runs cancels the answer, and the cancellation releases the lock. */
    @Test
    void aClientThatHangsUpReleasesItsWorkersLock() throws Exception {
        assertHangingUpReleasesTheWorkersLock();
    }
}
