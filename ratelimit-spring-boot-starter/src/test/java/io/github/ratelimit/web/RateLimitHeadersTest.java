package io.github.ratelimit.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RateLimitHeadersTest {

    static LimitOutcome outcome(
            RateLimit limit, String id, boolean allowed, long remaining, long resetMs, long retryMs) {
        return new LimitOutcome(
                new LimitRequest(limit, id, 1),
                allowed,
                remaining,
                Duration.ofMillis(resetMs),
                Duration.ofMillis(retryMs));
    }

    @Test
    void singleLimitAllowed() {
        RateLimit hello = RateLimit.of("hello", Algorithm.SLIDING_WINDOW, 5, 1000);
        Decision decision = new Decision(true, List.of(outcome(hello, "ip", true, 4, 1000, 0)), Instant.EPOCH);

        Map<String, String> headers = RateLimitHeaders.of(decision);

        assertThat(headers)
                .containsExactly(
                        Map.entry("RateLimit-Policy", "\"hello\";q=5;w=1"),
                        Map.entry("RateLimit", "\"hello\";r=4;t=1"));
    }

    @Test
    void retryAfterIsRoundedUpAndNeverZero() {
        RateLimit hello = RateLimit.of("hello", Algorithm.TOKEN_BUCKET, 5, 1000);
        Decision soon = new Decision(false, List.of(outcome(hello, "ip", false, 0, 1000, 1)), Instant.EPOCH);
        Decision later = new Decision(false, List.of(outcome(hello, "ip", false, 0, 1000, 2001)), Instant.EPOCH);

        assertThat(RateLimitHeaders.of(soon))
                .containsEntry("Retry-After", "1")
                .containsEntry("RateLimit", "\"hello\";r=0;t=1");
        assertThat(RateLimitHeaders.of(later)).containsEntry("Retry-After", "3");
    }

    @Test
    void limitsSharingANameAreToldApartByWindowAndIdentifiersByPartitionKey() {
        RateLimit perSecond = RateLimit.of("search", Algorithm.SLIDING_WINDOW, 10, 1_000);
        RateLimit perMinute = RateLimit.of("search", Algorithm.SLIDING_WINDOW, 120, 60_000);
        Decision decision = new Decision(
                false,
                List.of(
                        outcome(perSecond, "#ip\u00001.2.3.4", false, 0, 900, 900),
                        outcome(perSecond, "#user\u000042", true, 5, 900, 0),
                        outcome(perMinute, "#ip\u00001.2.3.4", true, 100, 60_000, 0),
                        outcome(perMinute, "#user\u000042", true, 100, 60_000, 0)),
                Instant.EPOCH);

        Map<String, String> headers = RateLimitHeaders.of(decision);

        assertThat(headers.get("RateLimit-Policy"))
                .matches(
                        "\"search-1s\";q=10;w=1;pk=:[A-Za-z0-9+/]{12}:, \"search-1s\";q=10;w=1;pk=:[A-Za-z0-9+/]{12}:,"
                                + " \"search-1m\";q=120;w=60;pk=:[A-Za-z0-9+/]{12}:, \"search-1m\";q=120;w=60;pk=:[A-Za-z0-9+/]{12}:");
        assertThat(headers.get("RateLimit")).startsWith("\"search-1s\";r=0;t=1;pk=:");
        assertThat(headers.get("RateLimit-Policy")).doesNotContain("1.2.3.4").doesNotContain("42;");
        assertThat(RateLimitHeaders.violatedPolicies(decision)).containsExactly("search-1s");
    }

    @Test
    void sameNameAndWindowWithDifferentLimitsGetDistinctPolicies() {
        RateLimit a = RateLimit.of("x", Algorithm.SLIDING_WINDOW, 10, 1_000);
        RateLimit b = RateLimit.of("x", Algorithm.FIXED_WINDOW, 20, 1_000);
        Decision decision = new Decision(
                true, List.of(outcome(a, "k", true, 1, 1, 0), outcome(b, "k", true, 1, 1, 0)), Instant.EPOCH);

        assertThat(RateLimitHeaders.policyNames(decision).values())
                .containsExactly("x-1s-sliding_window-10", "x-1s-fixed_window-20");
    }
}
