package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.test.support.RedisProcess;
import java.nio.file.Path;
import java.util.List;
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

    private static RedisProcess redis;
    private static SampleProcess application;
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
        application = SampleProcess.start(List.of("-Dspring.aot.enabled=true", "-jar", jar.toString()), redis.port());
        application.awaitUp();
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + redis.port());
        client = Redisson.create(config);
    }

    @BeforeEach
    void useTheJar() {
        port = application.port();
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
            application.stop();
        }
        if (redis != null) {
            redis.close();
        }
    }
}
