package io.github.ratelimit.test.kit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Real threads started together on a latch, each making its calls; any failure fails the test. */
final class Threads {

    /** One call of one thread. */
    interface Call {
        void run(int thread, int call) throws Exception;
    }

    private Threads() {}

    static void run(int threads, int callsEach, Call call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < callsEach; i++) {
                        call.run(thread, i);
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
