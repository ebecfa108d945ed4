package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.ratelimit.testing.RedisProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
    private static final Duration START_DEADLINE = Duration.ofSeconds(90);

    /** The application class to start in fresh JVMs. */
    abstract Class<?> application();

    @Test
    void theFirstBurstAfterTheInstancesReportUpAdmitsExactlyTheLimit() throws Exception {
        List<Instance> instances = new ArrayList<>();
        try (RedisProcess redis = RedisProcess.start()) {
            try {
                instances.add(Instance.start(application(), redis.port()));
                instances.add(Instance.start(application(), redis.port()));
                for (Instance instance : instances) {
                    instance.awaitUp();
                }

                Burst burst = Burst.send(
                        "127.0.0.41", List.of(instances.get(0).port, instances.get(1).port), "/api/hello", BURST);
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
                for (Instance instance : instances) {
                    instance.stop();
                }
            }
        }
    }

    private static String logs(List<Instance> instances) {
        StringBuilder all = new StringBuilder();
        for (Instance instance : instances) {
            all.append("--- instance on port ")
                    .append(instance.port)
                    .append('\n')
                    .append(instance.log());
        }
        return all.toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** A sample app in a JVM of its own, on the test's class path. */
    private record Instance(Process process, int port, Path output) {

        static Instance start(Class<?> application, int redisPort) throws IOException {
            int port = freePort();
            Path output = Files.createTempFile("fresh-instance-", ".log");
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            Process process = new ProcessBuilder(
                            java.toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            application.getName(),
                            "--server.port=" + port,
                            "--spring.data.redis.url=redis://127.0.0.1:" + redisPort)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            return new Instance(process, port, output);
        }

        /** Polls the health endpoint until it answers UP; the instance serves nothing else before. */
        void awaitUp() throws InterruptedException {
            long deadline = System.nanoTime() + START_DEADLINE.toNanos();
            while (System.nanoTime() - deadline < 0) {
                if (!process.isAlive()) {
                    throw new AssertionError("the instance on port " + port + " stopped:\n" + log());
                }
                try {
                    RawHttp.Response health = RawHttp.get("127.0.0.1", port, "/actuator/health", Map.of());
                    if (health.status() == 200 && health.body().contains("\"status\":\"UP\"")) {
                        return;
                    }
                } catch (UncheckedIOException notListeningYet) {
                    // the web server has not started yet
                }
                Thread.sleep(100);
            }
            throw new AssertionError("the instance on port " + port + " did not report UP:\n" + log());
        }

        String log() {
            try {
                return Files.readString(output, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(no log: " + e.getMessage() + ")";
            }
        }

        void stop() throws InterruptedException, IOException {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            Files.deleteIfExists(output);
        }
    }
}
