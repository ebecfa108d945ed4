package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The operator's view of the sample app: the ratelimits endpoint, health and metrics over HTTP. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ActuatorHttpTests {

    @LocalServerPort
    int port;

    RawHttp.Response get(String path) {
        return RawHttp.get("127.0.0.71", port, path, Map.of());
    }

    @Test
    void endpointListsEveryLimitWithItsSource() {
        RawHttp.Response limits = get("/actuator/ratelimits");
        assertThat(limits.status()).isEqualTo(200);
        assertThat(limits.body())
                .contains("\"name\":\"hello\"")
                .contains("HelloController.hello()")
                .contains("\"name\":\"search\"")
                .contains("\"name\":\"public\"")
                .contains("ratelimit.filter.rules[0]");
    }

    @Test
    void stateAndResetOfOneClient() {
        get("/api/hello");
        get("/api/hello");
        RawHttp.Response state = get("/actuator/ratelimits/hello?key=%23client&value=ip:127.0.0.71");
        assertThat(state.status()).isEqualTo(200);
        assertThat(state.body()).contains("\"remaining\":3");
        RawHttp.Response reset = RawHttp.send(
                "127.0.0.71",
                port,
                "DELETE",
                "/actuator/ratelimits/hello?key=%23client&value=ip:127.0.0.71",
                Map.of(),
                null);
        assertThat(reset.status()).isEqualTo(200);
        assertThat(get("/actuator/ratelimits/hello?key=%23client&value=ip:127.0.0.71")
                        .body())
                .contains("\"remaining\":5");
    }

    @Test
    void healthAndMetrics() {
        RawHttp.Response health = get("/actuator/health");
        assertThat(health.body()).contains("\"ratelimit\":{").contains("\"status\":\"UP\"");
        get("/api/hello");
        RawHttp.Response metrics = get("/actuator/metrics/ratelimit.decisions");
        assertThat(metrics.status()).isEqualTo(200);
        assertThat(metrics.body()).contains("\"limit\"").contains("\"outcome\"");
    }
}
