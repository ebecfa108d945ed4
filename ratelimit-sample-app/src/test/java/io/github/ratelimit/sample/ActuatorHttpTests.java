package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.UUID;
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
                RawHttp.OPERATOR,
                null);
        assertThat(reset.status()).isEqualTo(200);
        assertThat(get("/actuator/ratelimits/hello?key=%23client&value=ip:127.0.0.71")
                        .body())
                .contains("\"remaining\":5");
    }

    /** A plan group's state is the client's own plan's, and names it. */
    @Test
    void stateOfAPlanGroupNamesTheClientsPlan() {
        String key = "actuator-" + UUID.randomUUID();
        RawHttp.Response report = RawHttp.get("127.0.0.72", port, "/api/reports", Map.of("X-API-Key", key));
        assertThat(report.status()).isEqualTo(200);
        RawHttp.Response state = get("/actuator/ratelimits/reports?key=%23apiKey&value=" + key);
        assertThat(state.status()).isEqualTo(200);
        assertThat(state.body())
                .contains("\"plan\":\"default\"")
                .contains("\"limit\":1")
                .contains("\"remaining\":0");
        assertThat(get("/actuator/ratelimits").body())
                .contains("\"plan\":\"pro\"")
                .contains("\"plan\":\"free\"");
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
