package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.ratelimit.web.RateLimitFields;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The path rule from application.yml: 20 per minute per client, no annotation, forged headers do not help. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PublicRuleHttpTests {

    @LocalServerPort
    int port;

    RawHttp.Response ping(String from, Map<String, String> headers) {
        return RawHttp.get(from, port, "/api/public/ping", headers);
    }

    @Test
    void twentyPerMinuteThen429AndAForgedForwardedForDoesNotHelp() {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            RawHttp.Response ok = ping("127.0.0.61", Map.of("X-Forwarded-For", "10.9.9." + i));
            statuses.add(ok.status());
            assertThat(ok.body()).isEqualTo("pong");
            assertThat(ok.header("RateLimit")).isEqualTo("\"public\";r=" + (19 - i) + ";t=60");
        }
        RawHttp.Response limited = ping("127.0.0.61", Map.of("X-Forwarded-For", "203.0.113.99"));
        RawHttp.Response forwarded = ping("127.0.0.61", Map.of("Forwarded", "for=198.51.100.1"));
        RawHttp.Response otherClient = ping("127.0.0.62", Map.of());

        assertThat(statuses).containsOnly(200);
        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.header("RateLimit-Policy")).isEqualTo("\"public\";q=20;w=60");
        assertThat(limited.body()).contains("\"violated-policies\":[\"public\"]");
        assertThat(forwarded.status()).isEqualTo(429);
        assertThat(otherClient.status()).isEqualTo(200);
    }

    @Test
    void ruleAndAnnotationAreBothEnforcedAndBothInTheHeaders() {
        String client = "127.0.0.63";
        long started = System.nanoTime();
        RawHttp.Response first = RawHttp.get(client, port, "/api/public/burst", Map.of());
        assertThat(first.status()).isEqualTo(200);
        // what the client needs: the most constraining of the rule's and the annotation's items
        RateLimitFields firstFields =
                RateLimitFields.parse(first.header("RateLimit-Policy"), first.header("RateLimit"));
        assertThat(firstFields.names()).containsExactly("burst");
        assertThat(firstFields.remaining("burst")).isEqualTo(2);
        RawHttp.Response last = null;
        for (int i = 0; i < 3; i++) {
            last = RawHttp.get(client, port, "/api/public/burst", Map.of());
        }
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        assumeTrue(elapsedMs < 900, "four calls within one second (took " + elapsedMs + " ms)");
        assertThat(last.status())
                .as("the fourth call within a second: the annotation refuses")
                .isEqualTo(429);
        RateLimitFields lastFields = RateLimitFields.parse(last.header("RateLimit-Policy"), last.header("RateLimit"));
        assertThat(lastFields.names()).containsExactly("burst");
        assertThat(lastFields.remaining("burst")).isZero();
        assertThat(Long.parseLong(last.header("Retry-After"))).isEqualTo(lastFields.reset("burst"));
        assertThat(last.body()).contains("\"violated-policies\":[\"burst\"]");
        RawHttp.Response ping = RawHttp.get(client, port, "/api/public/ping", Map.of());
        assertThat(RateLimitFields.parse(ping.header("RateLimit-Policy"), ping.header("RateLimit"))
                        .remaining("public"))
                .as("the rule counted every call, the refused one included, since the filter admitted it")
                .isEqualTo(15);
    }

    /** Paths that reach the same handler through another spelling are counted by the rule all the same. */
    @Test
    void unusualSpellingsOfAPathDoNotSlipPastTheRule() {
        for (String path : java.util.List.of(
                "//api/public/ping",
                "/api/./public/ping",
                "/api/x/../public/ping",
                "/api/%70ublic/ping",
                "/api/public//ping",
                "/api/public/ping;jsessionid=1")) {
            RawHttp.Response response = RawHttp.get("127.0.0.64", port, path, Map.of());
            if (response.status() == 200) {
                assertThat(response.header("RateLimit")).as(path).startsWith("\"public\";");
            } else {
                assertThat(response.status()).as(path).isNotEqualTo(500);
            }
        }
    }
}
