package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A sample app with Redis refused (nothing listens on port 1): rate limits are decided in memory (the default failure
 * mode, one instance known: the whole limit), tokens and locks answer 503 with Retry-After, health stays UP, says the
 * limiter is degraded and names the address. Run against the servlet and the reactive sample, each started
 * with {@code sample.embedded-redis=false}, {@code spring.data.redis.url=redis://127.0.0.1:1} and the health probes on.
 */
abstract class RedisNotRunningContract {

    @LocalServerPort
    int port;

    @Test
    void limitsAreDecidedInMemoryAndTokensAndLocksAnswer503() {
        List<Integer> statuses = new ArrayList<>();
        long started = System.nanoTime();
        for (int i = 0; i < 8; i++) {
            RawHttp.Response hello = RawHttp.get("127.0.0.21", port, "/api/hello", Map.of());
            statuses.add(hello.status());
            assertThat(hello.header("RateLimit"))
                    .as("the local decision, reported as Redis's would be")
                    .isNotNull();
            if (hello.status() == 429) {
                assertThat(hello.header("Retry-After")).isNotNull();
            }
        }
        assertThat(statuses)
                .as("one instance known: the whole limit, 5 per second")
                .startsWith(200, 200, 200, 200, 200);
        if (System.nanoTime() - started < 1_000_000_000L) {
            assertThat(statuses)
                    .as("refused once the local limit is spent")
                    .containsExactly(200, 200, 200, 200, 200, 429, 429, 429);
        }
        RawHttp.Response spawn =
                RawHttp.get("127.0.0.21", port, "/api/spawn-vm?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", Map.of());
        assertThat(spawn.status()).isEqualTo(503);
        assertThat(spawn.header("Retry-After")).isNotNull();
        RawHttp.Response work = RawHttp.post("127.0.0.21", port, "/api/workers/alice?durationMs=0", Map.of(), null);
        assertThat(work.status()).isEqualTo(503);
        assertThat(work.header("Retry-After")).isNotNull();
        RawHttp.Response health = RawHttp.get("127.0.0.21", port, "/actuator/health/ratelimit", Map.of());
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.body())
                .contains("\"UP\"")
                .contains("\"degraded\":true")
                .contains("redis://127.0.0.1:1")
                .contains("unavailableSince");
        // the instance stays in rotation: its limits hold in memory
        assertThat(RawHttp.get("127.0.0.21", port, "/actuator/health/readiness", Map.of())
                        .status())
                .isEqualTo(200);
        assertThat(RawHttp.get("127.0.0.21", port, "/actuator/health/liveness", Map.of())
                        .status())
                .isEqualTo(200);
    }
}
