package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.ratelimit.testing.RedisProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two instances of a sample app given one spring.data.redis.url share their limits: run for the servlet sample here and
 * for the reactive one in its module.
 */
abstract class TwoInstancesContract {

    /** The application class to start twice. */
    abstract Class<?> application();

    @Test
    void limitsHoldAcrossInstancesSharingOneRedis() {
        try (RedisProcess redis = RedisProcess.start();
                ConfigurableApplicationContext one = start(redis.port());
                ConfigurableApplicationContext two = start(redis.port())) {
            int[] ports = {port(one), port(two)};
            List<Integer> statuses = new ArrayList<>();
            long started = System.nanoTime();
            for (int i = 0; i < 6; i++) {
                statuses.add(RawHttp.get("127.0.0.31", ports[i % 2], "/api/hello", Map.of())
                        .status());
            }
            long elapsedMs = (System.nanoTime() - started) / 1_000_000;
            assumeTrue(elapsedMs < 900, "six calls within one second (took " + elapsedMs + " ms)");

            assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429);
        }
    }

    private ConfigurableApplicationContext start(int redisPort) {
        return new SpringApplicationBuilder(application())
                .run("--server.port=0", "--spring.data.redis.url=redis://127.0.0.1:" + redisPort);
    }

    private static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }
}
