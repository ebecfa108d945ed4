package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.fixtures.Stalls;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * 30 clients share one limit of 5 per second and each retries exactly when told (Retry-After). With staggered advice
 * they come back spread out and almost every retry succeeds; with the earliest-time advice they come back together
 * and most are refused again. Real HTTP, real Redis; both runs print their figures.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StaggeredRetryHttpTests {

    static final int CLIENTS = 30;

    @LocalServerPort
    int port;

    /** Admissions seen by the clients: when each request was sent and when its answer came. */
    record Admission(long sentNanos, long answeredNanos) {}

    record Run(int refusals, List<Admission> admissions, long millis) {}

    Run run(String path) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger refusals = new AtomicInteger();
        List<Admission> admissions = Collections.synchronizedList(new ArrayList<>());
        long started = System.nanoTime();
        try {
            List<Future<?>> clients = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                String from = "127.0.1." + (c + 1);
                clients.add(pool.submit(() -> {
                    go.await();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (System.nanoTime() < deadline) {
                        long sent = System.nanoTime();
                        RawHttp.Response response = RawHttp.get(from, port, path, Map.of());
                        if (response.status() == 200) {
                            admissions.add(new Admission(sent, System.nanoTime()));
                            return null;
                        }
                        assertThat(response.status()).isEqualTo(429);
                        refusals.incrementAndGet();
                        Thread.sleep(Long.parseLong(response.header("Retry-After")) * 1000);
                    }
                    throw new AssertionError("a client did not get through within 30 s");
                }));
            }
            go.countDown();
            for (Future<?> client : clients) {
                client.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return new Run(refusals.get(), admissions, (System.nanoTime() - started) / 1_000_000);
    }

    /**
     * Admissions whose whole request lay within one second were decided within that second: there are never more
     * than the limit of them (a check that can only be stricter than the limit's own, never looser).
     */
    static int mostAdmissionsWithinOneSecond(List<Admission> admissions) {
        int most = 0;
        for (Admission from : admissions) {
            long until = from.sentNanos() + TimeUnit.SECONDS.toNanos(1);
            int within = 0;
            for (Admission other : admissions) {
                if (other.sentNanos() >= from.sentNanos() && other.answeredNanos() <= until) {
                    within++;
                }
            }
            most = Math.max(most, within);
        }
        return most;
    }

    @Test
    void staggeredAdviceLetsThirtyClientsThroughWithFewRefusals() throws Exception {
        Run staggered;
        try (Stalls stalls = Stalls.watch()) {
            staggered = run("/api/export");
            assertThat(staggered.millis()).as("all through, %s", stalls).isLessThan(stalls.allowing(12_000));
        }
        Run earliest = run("/api/export/unstaggered");
        System.out.printf(
                "30 clients, one limit of 5/s, each retrying when told: staggered advice %d refusals in %d ms;"
                        + " earliest advice %d refusals in %d ms%n",
                staggered.refusals(), staggered.millis(), earliest.refusals(), earliest.millis());

        assertThat(staggered.admissions()).hasSize(CLIENTS);
        assertThat(staggered.refusals()).isLessThanOrEqualTo(35);
        assertThat(mostAdmissionsWithinOneSecond(staggered.admissions())).isLessThanOrEqualTo(5);

        assertThat(earliest.admissions()).hasSize(CLIENTS);
        assertThat(mostAdmissionsWithinOneSecond(earliest.admissions())).isLessThanOrEqualTo(5);
        assertThat(earliest.refusals()).isGreaterThan(staggered.refusals() + 20);
    }
}
