package io.github.ratelimit.autoconfigure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.spring.wiring.RateLimitWarmUp;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

class RedisBackgroundWorkTest {

    /**
     * The first connection, then the background work, then the warm-up, all before the web server takes requests (a
     * lower phase starts first and stops last).
     */
    @Test
    void startsAfterTheConnectionAndBeforeTheWarmUpAndTheWebServer() {
        assertThat(List.of(
                        RedisFirstConnection.PHASE,
                        RedisBackgroundWork.PHASE,
                        RateLimitWarmUp.PHASE,
                        WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE))
                .isSorted()
                .doesNotHaveDuplicates();
    }

    /** Workers start in order and stop in the reverse order; one that fails to stop leaves the others to stop. */
    @Test
    void workersStopInTheReverseOrderOfTheirStartAndAllStop() {
        List<String> seen = new CopyOnWriteArrayList<>();
        RedisBackgroundWork work = new RedisBackgroundWork(List.of(
                new RedisBackgroundWork.Worker("a", () -> seen.add("start a"), () -> seen.add("stop a")),
                new RedisBackgroundWork.Worker("b", () -> seen.add("start b"), () -> {
                    seen.add("stop b");
                    throw new IllegalStateException("b cannot stop");
                }),
                new RedisBackgroundWork.Worker("c", () -> seen.add("start c"), () -> seen.add("stop c"))));

        assertThat(work.isRunning()).isFalse();
        work.start();
        assertThat(work.isRunning()).isTrue();
        work.stop();

        assertThat(work.isRunning()).isFalse();
        assertThat(seen).containsExactly("start a", "start b", "start c", "stop c", "stop b", "stop a");
    }
}
