package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A sample app with Redis refused (nothing listens on port 1): rate limits fail open (no headers), tokens and locks
 * answer 503 with Retry-After, health names the address. Run against the servlet and the reactive sample, each started
 * with {@code sample.embedded-redis=false}, {@code spring.data.redis.url=redis://127.0.0.1:1} and the health probes on.
 */
abstract class RedisNotRunningContract {

    @LocalServerPort
    int port;

    @Test
    void limitsFailOpenAndTokensAndLocksAnswer503() {
        for (int i = 0; i < 8; i++) {
            RawHttp.Response hello = RawHttp.get("127.0.0.21", port, "/api/hello", Map.of());
            assertThat(hello.status()).isEqualTo(200);
            assertThat(hello.header("RateLimit")).isNull();
        }
        RawHttp.Response spawn =
                RawHttp.get("127.0.0.21", port, "/api/spawn-vm?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", Map.of());
        assertThat(spawn.status()).isEqualTo(503);
        assertThat(spawn.header("Retry-After")).isNotNull();
        RawHttp.Response work = RawHttp.post("127.0.0.21", port, "/api/workers/alice?durationMs=0", Map.of(), null);
        assertThat(work.status()).isEqualTo(503);
        assertThat(work.header("Retry-After")).isNotNull();
        RawHttp.Response health = RawHttp.get("127.0.0.21", port, "/actuator/health/ratelimit", Map.of());
        assertThat(health.body())
                .contains("\"DOWN\"")
                .contains("redis://127.0.0.1:1")
                .contains("unavailableSince");
        // not part of readiness or liveness: an outage with fail-open limits keeps the instance in rotation
        assertThat(RawHttp.get("127.0.0.21", port, "/actuator/health/readiness", Map.of())
                        .status())
                .isEqualTo(200);
        assertThat(RawHttp.get("127.0.0.21", port, "/actuator/health/liveness", Map.of())
                        .status())
                .isEqualTo(200);
    }
}
