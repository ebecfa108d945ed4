package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.sample.kotlin.KotlinSampleApplication;
import io.github.ratelimit.test.support.NoBlockingCalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

/**
 * The Kotlin sample app on the memory store ({@code ratelimit.store=memory}), with no Redis process at all: the same
 * HTTP contract as on Redis holds in one instance, its suspend funs included, and no event-loop thread blocks while it
 * does.
 */
@SpringBootTest(
        classes = KotlinSampleApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"ratelimit.store=memory", "sample.embedded-redis=false"})
@ExtendWith(NoBlockingCalls.class)
class KotlinMemoryStoreHttpTests extends SampleHttpContract {

    @Autowired
    ApplicationContext context;

    @Test
    void noRedisClientIsMade() {
        assertThat(context.getBeanNamesForType(RedissonClient.class)).isEmpty();
    }

    /** A client that hangs up while its worker's coroutine runs cancels the coroutine, and that releases the lock. */
    @Test
    void aClientThatHangsUpReleasesItsWorkersLock() throws Exception {
        assertHangingUpReleasesTheWorkersLock();
    }
}
