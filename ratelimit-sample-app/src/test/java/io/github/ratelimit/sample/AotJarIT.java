package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.testing.RedisProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The servlet sample's jar as the build's {@code aot} profile made it (Boot's {@code process-aot}), started with
 * {@code -Dspring.aot.enabled=true} in a JVM of its own, answers the sample's whole HTTP contract. Started so, an
 * application without the AOT-generated initializer refuses to start; the jar is checked to carry it too. Run by
 * failsafe after the jar is packaged ({@code ./mvnw -B verify}).
 */
class AotJarIT extends SampleHttpContract {

    private static final Duration START_DEADLINE = Duration.ofSeconds(90);

    private static RedisProcess redis;
    private static Process application;
    private static Path output;
    private static int applicationPort;
    private static RedissonClient client;

    @BeforeAll
    static void startTheJarWithAot() throws Exception {
        Path jar = Path.of(System.getProperty("sample.jar", "target/ratelimit-sample-app.jar"));
        try (JarFile contents = new JarFile(jar.toFile())) {
            assertThat(
                            contents.getEntry(
                                    "BOOT-INF/classes/io/github/ratelimit/sample/SampleApplication__ApplicationContextInitializer.class"))
                    .as("the initializer process-aot generates, in " + jar)
                    .isNotNull();
        }
        redis = RedisProcess.start();
        applicationPort = freePort();
        output = Files.createTempFile("aot-sample-", ".log");
        application = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Dspring.aot.enabled=true",
                        "-jar",
                        jar.toString(),
                        "--server.port=" + applicationPort,
                        "--spring.data.redis.url=redis://127.0.0.1:" + redis.port())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        awaitUp();
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + redis.port());
        client = Redisson.create(config);
    }

    @BeforeEach
    void useTheJar() {
        port = applicationPort;
        redisson = client;
    }

    /** Every test starts from full budgets, as {@code @EmbeddedRedis} gives the in-process runs. */
    @AfterEach
    void clearCounts() {
        client.getKeys().flushall();
    }

    @AfterAll
    static void stop() throws Exception {
        if (client != null) {
            client.shutdown();
        }
        if (application != null) {
            application.destroy();
            if (!application.waitFor(20, TimeUnit.SECONDS)) {
                application.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (redis != null) {
            redis.close();
        }
        if (output != null) {
            Files.deleteIfExists(output);
        }
    }

    private static void awaitUp() throws InterruptedException {
        long deadline = System.nanoTime() + START_DEADLINE.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!application.isAlive()) {
                throw new AssertionError("the AOT-processed sample stopped:\n" + log());
            }
            try {
                RawHttp.Response health = RawHttp.get("127.0.0.1", applicationPort, "/actuator/health", Map.of());
                if (health.status() == 200 && health.body().contains("\"status\":\"UP\"")) {
                    return;
                }
            } catch (UncheckedIOException notListeningYet) {
                // the web server has not started yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the AOT-processed sample did not report UP:\n" + log());
    }

    private static String log() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
