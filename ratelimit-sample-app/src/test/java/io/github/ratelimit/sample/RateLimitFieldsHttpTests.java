package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.test.support.RateLimitFields;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Every rate-limited endpoint of the sample, admitted and refused, answers RateLimit and RateLimit-Policy fields that
 * an RFC 9651 parser accepts: String members with integer parameters, names unique in each field, every RateLimit
 * name declared in RateLimit-Policy, and on a 429 a Retry-After equal to the t of the policy that refused latest.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RateLimitFieldsHttpTests {

    @LocalServerPort
    int port;

    /** Calls until refused (at most 30 times), checking every answer's fields; returns the refusal. */
    RawHttp.Response untilRefused(Supplier<RawHttp.Response> call) {
        for (int i = 0; i < 30; i++) {
            RawHttp.Response response = call.get();
            RateLimitFields fields =
                    RateLimitFields.parse(response.header("RateLimit-Policy"), response.header("RateLimit"));
            assertThat(fields.names()).isNotEmpty();
            if (response.status() == 429) {
                long latest =
                        fields.names().stream().mapToLong(fields::reset).max().orElseThrow();
                assertThat(Long.parseLong(response.header("Retry-After")))
                        .isGreaterThanOrEqualTo(1)
                        .isEqualTo(latest);
                fields.names()
                        .forEach(name -> assertThat(fields.remaining(name)).isZero());
                return response;
            }
            assertThat(response.status()).isBetween(200, 299);
        }
        throw new AssertionError("never refused");
    }

    @Test
    void helloSearchRulesTokensAndExportAll() {
        String user = "u-" + UUID.randomUUID();
        untilRefused(() -> RawHttp.get("127.0.2.1", port, "/api/hello", Map.of()));
        untilRefused(() -> RawHttp.get("127.0.2.2", port, "/api/search?q=x", Map.of("X-User-Id", user)));
        untilRefused(() -> RawHttp.get("127.0.2.3", port, "/api/search?q=x", Map.of()));
        untilRefused(() -> RawHttp.get("127.0.2.4", port, "/api/public/ping", Map.of()));
        untilRefused(() -> RawHttp.get("127.0.2.5", port, "/api/public/burst", Map.of()));
        untilRefused(() -> RawHttp.post("127.0.2.6", port, "/api/tokens", Map.of("X-User-Id", user), null));
        untilRefused(() -> RawHttp.get("127.0.2.7", port, "/api/export", Map.of()));
    }
}
