package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The single-use token contract of the sample app: issue (throttled), spawn once, then 409. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class TokenHttpTests {

    private static final Pattern TOKEN = Pattern.compile("\"token\":\"([A-Za-z0-9_-]{32})\"");

    @LocalServerPort
    int port;

    String issue(String user, String json) {
        RawHttp.Response created = RawHttp.post("127.0.0.41", port, "/api/tokens", Map.of("X-User-Id", user), json);
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.body()).contains("\"expiresInSeconds\":600");
        Matcher matcher = TOKEN.matcher(created.body());
        assertThat(matcher.find()).as(created.body()).isTrue();
        return matcher.group(1);
    }

    RawHttp.Response spawn(String query) {
        return RawHttp.get("127.0.0.41", port, "/api/spawn-vm" + query, Map.of());
    }

    @Test
    void aTokenSpawnsOnceWithItsMetadataThenConflicts() {
        String token = issue("u-" + UUID.randomUUID(), "{\"size\":\"small\"}");

        RawHttp.Response first = spawn("?token=" + token);
        RawHttp.Response second = spawn("?token=" + token);

        assertThat(first.status()).isEqualTo(200);
        assertThat(first.body()).contains("\"size\":\"small\"");
        assertThat(second.status()).isEqualTo(409);
        assertThat(second.header("Content-Type")).startsWith("application/problem+json");
        assertThat(second.body()).contains("already used").doesNotContain(token);
    }

    @Test
    void unknownMissingAndMalformedTokens() {
        RawHttp.Response unknown = spawn("?token=" + "A".repeat(32));
        RawHttp.Response missing = spawn("");
        RawHttp.Response malformed = spawn("?token=%7Bnot-a-token%7D");

        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.body()).contains("unknown or expired").doesNotContain("A".repeat(32));
        assertThat(missing.status()).isEqualTo(400);
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.body()).doesNotContain("not-a-token");
    }

    @Test
    void issuingIsThrottledToOnePerSecondPerUser() {
        String user = "u-" + UUID.randomUUID();
        issue(user, null);
        RawHttp.Response second = RawHttp.post("127.0.0.41", port, "/api/tokens", Map.of("X-User-Id", user), null);
        RawHttp.Response otherUser = RawHttp.post(
                "127.0.0.41", port, "/api/tokens", Map.of("X-User-Id", "other-" + UUID.randomUUID()), null);

        assertThat(second.status()).isEqualTo(429);
        assertThat(second.header("Retry-After")).isEqualTo("1");
        assertThat(second.header("RateLimit-Policy")).isEqualTo("\"issue-token-userId\";q=1;w=1");
        assertThat(second.body()).contains("\"violated-policies\":[\"issue-token-userId\"]");
        assertThat(otherUser.status()).isEqualTo(201);
    }
}
