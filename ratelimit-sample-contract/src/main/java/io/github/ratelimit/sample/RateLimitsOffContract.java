package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A sample app with {@code ratelimit.enabled=false}: no limit and no RateLimit headers, while tokens still work exactly
 * once. Run against the servlet and the reactive sample.
 */
abstract class RateLimitsOffContract {

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
