package io.github.ratelimit.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.LimitOverrides.Change;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class LocalLimitOverridesTest {

    private final LocalLimitOverrides overrides = new LocalLimitOverrides();

    @Test
    void anOverrideIsReadUntilReplacedOrRemoved() {
        Change four = new Change(4L, null, null);
        Change shadow = new Change(null, null, true);

        assertThat(overrides.get("search")).isNull();
        overrides.set("search", four);
        assertThat(overrides.get("search")).isEqualTo(four);
        assertThat(overrides.get("hello")).isNull();

        overrides.set("search", shadow);
        assertThat(overrides.get("search")).isEqualTo(shadow);
        assertThat(overrides.list()).containsOnlyKeys("search");

        assertThat(overrides.remove("search")).isTrue();
        assertThat(overrides.remove("search")).as("removed once").isFalse();
        assertThat(overrides.get("search")).isNull();
        assertThat(overrides.list()).isEmpty();
    }

    @Test
    void theListIsASnapshotThatLaterChangesLeaveAsItWas() {
        overrides.set("a", new Change(1L, Duration.ofSeconds(1), null));
        var listed = overrides.list();
        overrides.set("b", new Change(2L, null, null));
        overrides.remove("a");

        assertThat(listed).containsOnlyKeys("a");
        assertThat(overrides.list()).containsOnlyKeys("b");
    }

    /** Operators writing at once from several threads: every write lands, none is lost to another. */
    @Test
    void concurrentWritesAreAllKept() throws Exception {
        int threads = 8;
        int each = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        overrides.set("limit-" + thread + "-" + i, new Change((long) i + 1, null, null));
                        if (i % 2 == 1) {
                            assertThat(overrides.remove("limit-" + thread + "-" + (i - 1)))
                                    .isTrue();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(overrides.list()).hasSize(threads * each / 2);
        assertThat(overrides.get("limit-3-199")).isEqualTo(new Change(200L, null, null));
        assertThat(overrides.get("limit-3-198")).isNull();
    }
}
