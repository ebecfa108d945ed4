package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.test.support.RedisProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A sample app takes new limits without a restart (Spring Cloud's refresh of the files of
 * {@code spring.config.import}), two instances sharing one Redis: run for each sample in its module.
 */
abstract class RefreshContract {

    /** The application class to start. */
    abstract Class<?> application();

    private ConfigurableApplicationContext start(int redisPort, String imported) {
        return new SpringApplicationBuilder(application())
                .run("--server.port=0", "--spring.data.redis.url=redis://127.0.0.1:" + redisPort, imported);
    }

    private static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    private static RawHttp.Response monthly(int port, String apiKey) {
        return RawHttp.get("127.0.0.36", port, "/api/monthly", Map.of("X-Api-Key", apiKey));
    }

    /**
     * Limits change without a restart (Spring Cloud's refresh): an instance started with
     * {@code --spring.config.import=optional:file:<dir>/limits.yml}, after that file raised the monthly default plan
     * from 3 to 5 and the operator sent {@code POST /actuator/refresh} (anyone else gets 401), lets a key that had used
     * its 3 calls make exactly 2 more, and its {@code /api/usage} says 5; the other instance, not refreshed, still
     * refuses at 3; an invalid file is refused as a whole, the limits in force staying.
     */
    @Test
    void aRefreshRaisesTheMonthlyQuotaKeepingWhatWasCounted() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("limits");
        java.nio.file.Path file = dir.resolve("limits.yml");
        String imported = "--spring.config.import=optional:file:" + file.toAbsolutePath();
        try (RedisProcess redis = RedisProcess.start();
                ConfigurableApplicationContext one = start(redis.port(), imported);
                ConfigurableApplicationContext two = start(redis.port(), imported)) {
            String key = "k-" + java.util.UUID.randomUUID();
            List<Integer> before = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                before.add(monthly(port(i % 2 == 0 ? one : two), key).status());
            }
            assertThat(before).containsExactly(200, 200, 200, 429);

            java.nio.file.Files.writeString(
                    file, "ratelimit.plans.groups.monthly.plans.default: [{limit: 5, period: month}]\n");
            assertThat(RawHttp.post("127.0.0.1", port(one), "/actuator/refresh", Map.of(), null)
                            .status())
                    .as("anyone but the operator")
                    .isEqualTo(401);
            RawHttp.Response refreshed =
                    RawHttp.post("127.0.0.1", port(one), "/actuator/refresh", RawHttp.OPERATOR, null);
            assertThat(refreshed.status()).as(refreshed.body()).isEqualTo(200);
            assertThat(refreshed.body()).contains("ratelimit.plans.groups.monthly.plans.default[0].limit");

            assertThat(monthly(port(two), key).status())
                    .as("not refreshed: 3 of 3")
                    .isEqualTo(429);
            List<Integer> after = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                after.add(monthly(port(one), key).status());
            }
            assertThat(after).as("3 of 5 used: exactly 2 more").containsExactly(200, 200, 429);
            RawHttp.Response usage = RawHttp.get("127.0.0.36", port(one), "/api/usage", Map.of("X-Api-Key", key));
            assertThat(com.jayway.jsonpath.JsonPath.parse(usage.body())
                            .<List<Integer>>read("$.limits[?(@.name == 'monthly')].limit"))
                    .containsExactly(5);

            java.nio.file.Files.writeString(
                    file, "ratelimit.plans.groups.monthly.plans.default: [{limit: 0, period: month}]\n");
            assertThat(RawHttp.post("127.0.0.1", port(one), "/actuator/refresh", RawHttp.OPERATOR, null)
                            .status())
                    .isEqualTo(200);
            RawHttp.Response stays = RawHttp.get("127.0.0.36", port(one), "/api/usage", Map.of("X-Api-Key", key));
            assertThat(com.jayway.jsonpath.JsonPath.parse(stays.body())
                            .<List<Integer>>read("$.limits[?(@.name == 'monthly')].limit"))
                    .as("an invalid quota refused: the limits in force stay")
                    .containsExactly(5);
            assertThat(monthly(port(one), key).status()).isEqualTo(429);
        } finally {
            java.nio.file.Files.deleteIfExists(file);
            java.nio.file.Files.deleteIfExists(dir);
        }
    }
}
