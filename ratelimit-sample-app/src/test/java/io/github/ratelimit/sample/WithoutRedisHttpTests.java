package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The sample app starts and serves with Redis not running, and with rate limits switched off. */
class WithoutRedisHttpTests {

    /**
     * Redis refused (nothing listens on port 1): rate limits fail open (no headers), tokens and locks answer 503
     * with Retry-After, health names the address.
     */
    @Nested
    @SpringBootTest(
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {
                "sample.embedded-redis=false",
                "spring.data.redis.url=redis://127.0.0.1:1",
                "management.endpoint.health.probes.enabled=true"
            })
    class RedisNotRunning {

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

    /** ratelimit.enabled=false: no limit and no RateLimit headers, while tokens still work exactly once. */
    @Nested
    @SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "ratelimit.enabled=false")
    class RateLimitsOff {

        @LocalServerPort
        int port;

        @Test
        void nothingIsLimitedAndTokensStaySingleUse() {
            for (int i = 0; i < 8; i++) {
                RawHttp.Response hello = RawHttp.get("127.0.0.22", port, "/api/hello", Map.of());
                assertThat(hello.status()).isEqualTo(200);
                assertThat(hello.header("RateLimit")).isNull();
            }
            for (int i = 0; i < 25; i++) {
                assertThat(RawHttp.get("127.0.0.22", port, "/api/public/ping", Map.of())
                                .status())
                        .isEqualTo(200);
            }
            RawHttp.Response issued = RawHttp.post("127.0.0.22", port, "/api/tokens", Map.of(), null);
            assertThat(issued.status()).isEqualTo(201);
            String token = issued.body().replaceAll(".*\"token\":\"([^\"]*)\".*", "$1");
            assertThat(RawHttp.get("127.0.0.22", port, "/api/spawn-vm?token=" + token, Map.of())
                            .status())
                    .isEqualTo(200);
            assertThat(RawHttp.get("127.0.0.22", port, "/api/spawn-vm?token=" + token, Map.of())
                            .status())
                    .isEqualTo(409);
        }
    }
}
