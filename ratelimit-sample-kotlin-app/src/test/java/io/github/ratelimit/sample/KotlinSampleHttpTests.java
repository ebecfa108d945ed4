package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.sample.kotlin.KotlinSampleApplication;
import io.github.ratelimit.test.EmbeddedRedis;
import io.github.ratelimit.test.support.NoBlockingCalls;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
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
        String user = "u-" + UUID.randomUUID();
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress("127.0.0.52", 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /api/workers/" + user + "?durationMs=30000 HTTP/1.1\r\nHost: localhost\r\n"
                            + "Content-Length: 0\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (heldLocks() == 0) {
                assertThat(System.nanoTime()).as("the worker to hold its lock").isLessThan(deadline);
                Thread.onSpinWait();
            }
            InputStream in = socket.getInputStream();
            assertThat(in.available())
                    .as("no answer yet: the worker runs for 30 s")
                    .isZero();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (heldLocks() > 0) {
            assertThat(System.nanoTime())
                    .as("the lock released within 5 s of the hang-up, not at the end of its 5 s lease renewed for 40 s")
                    .isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(RawHttp.post("127.0.0.52", port, "/api/workers/" + user + "?durationMs=0", java.util.Map.of(), null)
                        .status())
                .isEqualTo(200);
    }
}
