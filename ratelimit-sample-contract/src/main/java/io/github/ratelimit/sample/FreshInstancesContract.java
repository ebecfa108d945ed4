package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.ratelimit.test.support.RedisProcess;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The first burst after a start is decided by Redis: two instances of a sample app, each in a JVM of its own that has
 * served nothing yet, share one Redis; once both report UP, forty calls at once from one client on {@code /api/hello}
 * (five per second) are admitted exactly five times. A cold JVM (class loading, JIT, a first reactive chain on a small
 * machine) must not turn slow first calls into calls answered without Redis. Run for the servlet sample and for the
 * reactive one, each in its module.
 */
abstract class FreshInstancesContract {

    private static final int BURST = 40;

    /**
     * A budget of 1 s, not the default 200 ms: what this contract holds to is that nothing in a cold JVM turns a first
     * call into one answered without Redis, not that a machine running another build beside this one never stalls a
     * call 200 ms (it did once, and the call was rightly decided in memory).
     */
    private static final String BUDGET = "--ratelimit.redis.timeout=1s";

    /** The application class to start in fresh JVMs. */
    abstract Class<?> application();

    @Test
    void theFirstBurstAfterTheInstancesReportUpAdmitsExactlyTheLimit() throws Exception {
        List<SampleProcess> instances = new ArrayList<>();
        try (RedisProcess redis = RedisProcess.start()) {
            try {
                instances.add(SampleProcess.ofClass(application(), redis.port(), BUDGET));
                instances.add(SampleProcess.ofClass(application(), redis.port(), BUDGET));
                for (SampleProcess instance : instances) {
                    instance.awaitUp();
                }

                Burst burst = Burst.send(
                        "127.0.0.41",
                        List.of(instances.get(0).port(), instances.get(1).port()),
                        "/api/hello",
                        BURST);
                assumeTrue(
                        burst.elapsedMs() < 1_000,
                        "the burst within the one-second window (took " + burst.elapsedMs() + " ms)");

                assertThat(burst.admitted())
                        .as(
                                "admitted of %d in %d ms; statuses %s; logs:%n%s",
                                BURST, burst.elapsedMs(), burst.statuses(), logs(instances))
                        .isEqualTo(5);
                assertThat(burst.statuses()).containsOnly(200, 429);
            } finally {
                for (SampleProcess instance : instances) {
                    instance.stop();
                }
            }
        }
    }

    private static String logs(List<SampleProcess> instances) {
        StringBuilder all = new StringBuilder();
        for (SampleProcess instance : instances) {
            all.append("--- instance on port ")
                    .append(instance.port())
                    .append('\n')
                    .append(instance.log());
        }
        return all.toString();
    }
}
