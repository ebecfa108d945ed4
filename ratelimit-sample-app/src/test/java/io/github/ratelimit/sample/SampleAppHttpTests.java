package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.ratelimit.web.RateLimitFields;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The sample app, started for real (with its embedded Redis) on a random port, answers its HTTP contract. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleAppHttpTests {

    @LocalServerPort
    int port;

    RawHttp.Response get(String from, String path) {
        return RawHttp.get(from, port, path, Map.of());
    }

    RawHttp.Response get(String from, String path, String userId) {
        return RawHttp.get(from, port, path, Map.of("X-User-Id", userId));
    }

    @Test
    void helloAdmitsFivePerSecondThenAnswers429WithRetryAfterRateLimitHeadersAndAProblem() {
        String client = "127.0.0.11";
        long started = System.nanoTime();
        List<RawHttp.Response> responses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            responses.add(get(client, "/api/hello"));
        }
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        assumeTrue(elapsedMs < 900, "six calls within one second of each other (took " + elapsedMs + " ms)");

        for (int i = 0; i < 5; i++) {
            RawHttp.Response ok = responses.get(i);
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.body()).contains("\"message\":\"hello\"");
            assertThat(ok.header("RateLimit-Policy")).isEqualTo("\"hello\";q=5;w=1");
            assertThat(ok.header("RateLimit")).isEqualTo("\"hello\";r=" + (4 - i) + ";t=1");
        }
        RawHttp.Response limited = responses.get(5);
        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.header("Retry-After")).isEqualTo("1");
        assertThat(limited.header("RateLimit-Policy")).isEqualTo("\"hello\";q=5;w=1");
        assertThat(limited.header("RateLimit")).isEqualTo("\"hello\";r=0;t=1");
        assertThat(limited.header("Content-Type")).startsWith("application/problem+json");
        assertThat(limited.body())
                .contains("\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\"")
                .contains("\"status\":429")
                .contains("\"violated-policies\":[\"hello\"]");
    }

    @Test
    void helloIsLimitedPerClient() {
        for (int i = 0; i < 5; i++) {
            get("127.0.0.12", "/api/hello");
        }
        assertThat(get("127.0.0.13", "/api/hello").status()).isEqualTo(200);
    }

    @Test
    void searchLimitsTheIpAndTheUserEachOnItsOwn() {
        String userA = "alice-" + UUID.randomUUID();
        long started = System.nanoTime();
        List<Integer> firstTen = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            firstTen.add(get("127.0.0.21", "/api/search?q=redis", userA).status());
        }
        RawHttp.Response eleventh = get("127.0.0.21", "/api/search?q=redis", userA);
        RawHttp.Response sameUserOtherIp = get("127.0.0.22", "/api/search?q=redis", userA);
        RawHttp.Response otherIpNoUser = get("127.0.0.22", "/api/search?q=redis");
        RawHttp.Response sameIpOtherUser = get("127.0.0.21", "/api/search?q=redis", "bob-" + UUID.randomUUID());
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        assumeTrue(elapsedMs < 900, "the calls within one second (took " + elapsedMs + " ms)");

        assertThat(firstTen).containsOnly(200);
        assertThat(eleventh.status()).isEqualTo(429);
        assertThat(eleventh.body()).contains("\"violated-policies\":[\"search-1s-ip\",\"search-1s-userId\"]");
        RateLimitFields refused =
                RateLimitFields.parse(eleventh.header("RateLimit-Policy"), eleventh.header("RateLimit"));
        assertThat(refused.names()).containsExactly("search-1s-ip", "search-1s-userId");
        assertThat(refused.quota("search-1s-ip")).isEqualTo(10);
        assertThat(refused.window("search-1s-ip")).isEqualTo(1);
        assertThat(Long.parseLong(eleventh.header("Retry-After")))
                .isEqualTo(Math.max(refused.reset("search-1s-ip"), refused.reset("search-1s-userId")));
        assertThat(sameUserOtherIp.status()).as("the user's own limit").isEqualTo(429);
        assertThat(otherIpNoUser.status()).as("another client without a user").isEqualTo(200);
        assertThat(RateLimitFields.parse(otherIpNoUser.header("RateLimit-Policy"), otherIpNoUser.header("RateLimit"))
                        .names())
                .as("the most constraining item only, named after its limit and identifier")
                .containsExactly("search-1s-ip");
        assertThat(sameIpOtherUser.status()).as("the IP's limit").isEqualTo(429);
    }
}
