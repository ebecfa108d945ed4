package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * {@code GET /api/global}: 50 a second for every caller together, leased. Eight clients (distinct addresses) call the
 * instances in turn about 100 times a second in all. Each request is decided between its start and the end of its
 * answer, and Redis shares this machine's clock, so the requests that started and ended within one second were
 * decided in it: those admitted number at most 50 (exactly the limit, whatever the machine's speed); a second in
 * which a request was refused admitted at least 40 of the requests that may have been decided in it; at least three
 * seconds refused.
 */
final class GlobalLimitLoad {

    /** What the load admitted, and a counter read at the end of the warm-up and at the end. */
    record Result(int admitted, double countedBefore, double countedAfter) {}

    private GlobalLimitLoad() {}

    /** Runs the load for two seconds of warm-up and then {@code durationMs}, asserting the bounds above. */
    static Result run(int[] ports, long durationMs, DoubleSupplier counter) throws InterruptedException {
        long warmUntil = (System.currentTimeMillis() / 1000 + 2) * 1000;
        long until = warmUntil + durationMs;
        record Answered(long startMs, long endMs, int status) {}
        java.util.concurrent.ConcurrentLinkedQueue<Answered> answered =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        List<Thread> clients = new ArrayList<>();
        java.util.concurrent.ConcurrentLinkedQueue<Throwable> failures =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        for (int c = 0; c < 8; c++) {
            String address = "127.0.0." + (60 + c);
            int first = c;
            Thread client = new Thread(() -> {
                try {
                    int n = first;
                    long next = System.nanoTime();
                    long now;
                    while ((now = System.currentTimeMillis()) < until) {
                        int status = RawHttp.get(address, ports[n++ % 2], "/api/global", Map.of())
                                .status();
                        if (now >= warmUntil) {
                            answered.add(new Answered(now, System.currentTimeMillis(), status));
                        }
                        assertThat(status).isIn(200, 429);
                        // the load's pace (about 12 a second per client), not a wait for anything
                        next += 80_000_000L;
                        long ahead = next - System.nanoTime();
                        if (ahead > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(ahead);
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            clients.add(client);
            client.start();
        }
        // the counter is read from the end of the warm-up (two seconds of calls not counted)
        long warm = warmUntil - System.currentTimeMillis();
        if (warm > 0) {
            Thread.sleep(warm);
        }
        double countedBefore = counter.getAsDouble();
        for (Thread client : clients) {
            client.join();
        }
        assertThat(failures).isEmpty();
        double countedAfter = counter.getAsDouble();
        int admitted = 0;
        int refusing = 0;
        for (long second = warmUntil / 1000; second < until / 1000; second++) {
            long from = second * 1000;
            long to = from + 1000;
            int within = 0; // admitted, and decided in this second for sure
            int maybe = 0; // admitted, and maybe decided in this second
            boolean refused = false; // a request refused in this second for sure
            for (Answered answer : answered) {
                boolean surely = answer.startMs() >= from && answer.endMs() < to;
                boolean maybeHere = answer.startMs() < to && answer.endMs() >= from;
                if (answer.status() == 200) {
                    within += surely ? 1 : 0;
                    maybe += maybeHere ? 1 : 0;
                    admitted += answer.startMs() >= from && answer.startMs() < to ? 1 : 0;
                } else {
                    refused |= surely;
                }
            }
            System.out.printf(
                    "/api/global second %d: %d admitted for sure, %d maybe, %s%n",
                    second, within, maybe, refused ? "refusing" : "none refused for sure");
            assertThat(within).as("admitted in second %d", second).isLessThanOrEqualTo(50);
            if (refused) {
                refusing++;
                assertThat(maybe)
                        .as("admitted, maybe in second %d, which refused", second)
                        .isGreaterThanOrEqualTo(40);
            }
        }
        assertThat(refusing).as("seconds that refused calls").isGreaterThanOrEqualTo(3);
        return new Result(admitted, countedBefore, countedAfter);
    }
}
