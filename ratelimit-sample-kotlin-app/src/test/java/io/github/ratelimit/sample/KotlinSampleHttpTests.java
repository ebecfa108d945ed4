package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.sample.kotlin.KotlinSampleApplication;
import io.github.ratelimit.test.EmbeddedRedis;
import io.github.ratelimit.test.support.NoBlockingCalls;
import java.util.List;
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

    /**
     * {@code GET /api/wait} (a suspend fun, 5 per second per client, a refused call waiting up to 5 s): 12 calls at once
     * all succeed, the waiting ones suspended until their slot (no thread blocks: BlockHound is on), the first five
     * at once and the last after its slot past the first second.
     */
    @Test
    void waitingCoroutinesSuspendUntilTheirSlot() throws Exception {
        Burst burst = Burst.send("127.0.0.33", List.of(port), "/api/wait", 12);

        assertThat(burst.statuses()).as("answers in %d ms", burst.elapsedMs()).containsOnly(200);
        List<Long> millis =
                burst.answers().stream().map(Burst.Answer::millis).sorted().toList();
        // the first five are answered before the first slot (1 s after them) could have come, however slow the machine
        assertThat(millis.get(4)).as("the first five, in %s", millis).isLessThan(millis.get(5) - 500);
        assertThat(millis.get(11)).as("the last, in %s", millis).isBetween(1_000L, 5_000L);
    }

    /** A client that hangs up while its worker's coroutine runs cancels the coroutine, and that releases the lock. */
    @Test
    void aClientThatHangsUpReleasesItsWorkersLock() throws Exception {
        assertHangingUpReleasesTheWorkersLock();
    }
}
