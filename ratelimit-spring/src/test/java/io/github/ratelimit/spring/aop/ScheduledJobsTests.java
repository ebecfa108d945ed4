package io.github.ratelimit.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.spring.EngineContext;
import io.github.ratelimit.test.kit.Poll;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Scheduled jobs across two instances on one Redis, the second started half a tick after the first, each job a 5 ms
 * body on a one-second schedule: without a minimum hold the second instance runs every tick again (the lock was free
 * by the time its schedule fired); with one, each tick runs once across both. A busy lock on a scheduled run skips it
 * with no ERROR line. {@code -Djobs.ticks=60} runs it longer; the figures are printed.
 */
class ScheduledJobsTests {

    static final long TICK_MS = 1_000;
    static final int TICKS = Integer.getInteger("jobs.ticks", 30);

    /** When each job ran, in nanoseconds of this JVM, across both instances. */
    static final ConcurrentLinkedQueue<Long> runsWithoutHold = new ConcurrentLinkedQueue<>();

    static final ConcurrentLinkedQueue<Long> runsWithHold = new ConcurrentLinkedQueue<>();

    static class Jobs {

        @Scheduled(fixedRate = TICK_MS, initialDelayString = "${jobs.offset-ms}")
        @Locked(name = "tick-without-hold")
        public void withoutHold() throws InterruptedException {
            runsWithoutHold.add(System.nanoTime());
            TimeUnit.MILLISECONDS.sleep(5); // the job's body
        }

        @Scheduled(fixedRate = TICK_MS, initialDelayString = "${jobs.offset-ms}")
        @Locked(name = "tick-with-hold", minHoldMs = 900)
        public void withHold() throws InterruptedException {
            runsWithHold.add(System.nanoTime());
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Scheduling {

        static final AtomicInteger skipped = new AtomicInteger();

        @Bean
        Jobs jobs() {
            return new Jobs();
        }

        @Bean
        RateLimitListener skips() {
            return new RateLimitListener() {
                @Override
                public void lockSkipped(String name) {
                    skipped.incrementAndGet();
                }
            };
        }
    }

    /** The application of these tests: the engine wired by hand on plain Spring ({@link EngineContext}). */
    private static EngineContext engine() {
        return EngineContext.on("jobs:").beans(Scheduling.class);
    }

    @Test
    void aScheduledJobRunsOncePerTickAcrossTwoInstancesWithAMinimumHoldAndNeverLogsAnError() {
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        logged.start();
        root.addAppender(logged);
        try {
            try (AnnotationConfigApplicationContext first =
                            engine().property("jobs.offset-ms", "0").start();
                    AnnotationConfigApplicationContext second =
                            engine().property("jobs.offset-ms", "500").start()) {
                Poll.until(
                        TICKS + " ticks",
                        Duration.ofMillis(TICK_MS * TICKS * 3),
                        () -> runsWithHold.size() >= TICKS && runsWithoutHold.size() >= TICKS * 3 / 2);
            }
        } finally {
            root.detachAppender(logged);
        }

        Map<Long, Integer> without = perTick(runsWithoutHold);
        Map<Long, Integer> with = perTick(runsWithHold);
        List<ILoggingEvent> errors = logged.list.stream()
                .filter(event -> event.getLevel().isGreaterOrEqual(Level.ERROR))
                .toList();
        long closest = closestRuns(runsWithHold);
        System.out.printf(
                "scheduled job, 2 instances 500 ms apart, %d ms ticks: without a minimum hold %d runs in %d ticks"
                        + " (%.2f a tick, %d ticks run twice); with minHoldMs=900 %d runs in %d ticks (%.2f a tick,"
                        + " most in one tick %d, closest runs %d ms apart); skipped runs %d; ERROR lines %d%n",
                TICK_MS,
                runsWithoutHold.size(),
                without.size(),
                runsWithoutHold.size() / (double) without.size(),
                without.values().stream().filter(n -> n >= 2).count(),
                runsWithHold.size(),
                with.size(),
                runsWithHold.size() / (double) with.size(),
                with.values().stream().mapToInt(Integer::intValue).max().orElse(0),
                closest,
                Scheduling.skipped.get(),
                errors.size());

        assertThat(errors).as("ERROR lines").isEmpty();
        // the instances' schedules are not aligned, so a run may fall early or late in its tick; what holds is that no
        // two runs are closer than the minimum hold (900 ms on Redis's clock, less the delay of a run's start here, up
        // to 200 ms allowed for a busy machine), where without it the second instance runs half a tick after the first
        assertThat(closest).as("closest runs with a minimum hold, ms").isGreaterThanOrEqualTo(700);
        // runs at least 700 ms apart fall about once a tick, never more than a tick / 700 ms (on a busy machine a late
        // run's successor may fall in the same tick of this JVM's clock)
        assertThat(runsWithHold.size() / (double) with.size())
                .as("runs a tick with a minimum hold")
                .isLessThanOrEqualTo(TICK_MS / 700.0);
        assertThat(Scheduling.skipped).as("runs skipped on a busy lock").hasValueGreaterThan(0);
        // Without the hold, how many ticks run twice depends on how far apart the two schedules fell, which is the
        // second context's start time (half a second later on a quiet machine, anything on a busy one): printed above,
        // not asserted.
    }

    /** The shortest time between two consecutive runs, in ms. */
    private static long closestRuns(ConcurrentLinkedQueue<Long> runs) {
        long[] sorted = runs.stream().mapToLong(Long::longValue).sorted().toArray();
        long closest = Long.MAX_VALUE;
        for (int i = 1; i < sorted.length; i++) {
            closest = Math.min(closest, TimeUnit.NANOSECONDS.toMillis(sorted[i] - sorted[i - 1]));
        }
        return closest;
    }

    /** Runs per tick, ticks counted from the first run. */
    private static Map<Long, Integer> perTick(ConcurrentLinkedQueue<Long> runs) {
        long first = runs.stream().mapToLong(Long::longValue).min().orElse(0);
        Map<Long, Integer> perTick = new TreeMap<>();
        for (long run : runs) {
            perTick.merge(TimeUnit.NANOSECONDS.toMillis(run - first) / TICK_MS, 1, Integer::sum);
        }
        return perTick;
    }
}
