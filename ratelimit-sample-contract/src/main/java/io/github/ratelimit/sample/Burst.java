package io.github.ratelimit.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Calls of one client sent at once, as a burst of requests arrives: {@code GET path} from one source address, spread
 * over the given ports in turn, each on its own thread, all released together by a latch.
 *
 * @param answers one per call, in the order sent
 * @param elapsedMs from the release to the last answer
 */
record Burst(List<Answer> answers, long elapsedMs) {

    /** One call's answer and how long it took. */
    record Answer(int status, long millis, boolean rateLimitFields) {}

    static Burst send(String client, List<Integer> ports, String path, int calls) throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(calls);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Answer>> pending = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                int port = ports.get(i % ports.size());
                pending.add(callers.submit(() -> {
                    go.await();
                    long started = System.nanoTime();
                    RawHttp.Response response = RawHttp.get(client, port, path, Map.of());
                    return new Answer(
                            response.status(),
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                            response.header("RateLimit") != null);
                }));
            }
            long started = System.nanoTime();
            go.countDown();
            List<Answer> answers = new ArrayList<>();
            for (Future<Answer> answer : pending) {
                answers.add(answer.get(30, TimeUnit.SECONDS));
            }
            return new Burst(answers, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        } finally {
            callers.shutdownNow();
        }
    }

    long admitted() {
        return answers.stream().filter(answer -> answer.status() == 200).count();
    }

    List<Integer> statuses() {
        return answers.stream().map(Answer::status).toList();
    }

    long worstMillis() {
        return answers.stream().mapToLong(Answer::millis).max().orElse(0);
    }
}
