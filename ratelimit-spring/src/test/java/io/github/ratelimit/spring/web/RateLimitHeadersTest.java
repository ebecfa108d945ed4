package io.github.ratelimit.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.test.support.RateLimitFields;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The RateLimit, RateLimit-Policy and Retry-After fields, read back with an RFC 9651 parser. */
class RateLimitHeadersTest {

    static LimitOutcome outcome(
            RateLimit limit, ClientIdentifier identifier, boolean allowed, long remaining, long resetMs, long retryMs) {
        return new LimitOutcome(
                LimitRequest.of(limit, identifier, 1),
                allowed,
                remaining,
                Duration.ofMillis(resetMs),
                Duration.ofMillis(retryMs));
    }

    static ClientIdentifier id(String kind, String value) {
        return ClientIdentifier.of(kind, value);
    }

    static RateLimitFields fields(Map<String, String> headers) {
        return RateLimitFields.parse(headers.get("RateLimit-Policy"), headers.get("RateLimit"));
    }

    static final RateLimit PER_SECOND = RateLimit.of("search", Algorithm.SLIDING_WINDOW, 10, 1_000);
    static final RateLimit PER_MINUTE = RateLimit.of("search", Algorithm.SLIDING_WINDOW, 120, 60_000);

    /** /api/search for an IP and a user: 10/s and 120/min for each, four items. */
    static Decision search(boolean userRefused) {
        return new Decision(
                !userRefused,
                List.of(
                        outcome(PER_SECOND, id("#ip", "1.2.3.4"), true, 7, 900, 0),
                        outcome(PER_SECOND, id("#userId ?: {}", "42"), !userRefused, 0, 900, userRefused ? 700 : 0),
                        outcome(PER_MINUTE, id("#ip", "1.2.3.4"), true, 100, 59_000, 0),
                        outcome(PER_MINUTE, id("#userId ?: {}", "42"), true, 90, 59_000, 0)),
                Instant.EPOCH);
    }

    /** A refusal served in the JVM lists only the refusing limit, yet names it as Redis's refusal of the call does. */
    @Test
    void aRefusalServedLocallyNamesItsItemsAsRedisDoes() {
        Decision byRedis = search(true);
        LimitOutcome refused = byRedis.outcomes().get(1);
        Decision local = Decision.servedLocally(List.of(refused), Instant.EPOCH, byRedis.requests());

        RateLimitFields fields = fields(RateLimitHeaders.of(local, false));

        assertThat(fields.names()).containsExactly("search-1s-userId");
        assertThat(fields(RateLimitHeaders.of(byRedis, false)).names()).containsExactly("search-1s-userId");
        assertThat(RateLimitHeaders.violatedPolicies(local)).containsExactly("search-1s-userId");
    }

    @Test
    void aSingleDefaultKeyedLimitIsNamedAfterTheLimit() {
        RateLimit hello = RateLimit.of("hello", Algorithm.SLIDING_WINDOW, 5, 1000);
        Decision decision = new Decision(
                true, List.of(outcome(hello, id("#client", "ip:1.2.3.4"), true, 4, 1000, 0)), Instant.EPOCH);
        RateLimitFields fields = fields(RateLimitHeaders.of(decision, false));
        assertThat(fields.names()).containsExactly("hello");
        assertThat(fields.quota("hello")).isEqualTo(5);
        assertThat(fields.window("hello")).isEqualTo(1);
        assertThat(fields.remaining("hello")).isEqualTo(4);
        assertThat(fields.reset("hello")).isEqualTo(1);
    }

    @Test
    void everyItemHasAUniqueNameSayingWhichLimitAndWhichIdentifier() {
        RateLimitFields all = fields(RateLimitHeaders.of(search(false), true));
        assertThat(all.names()).containsExactly("search-1s-ip", "search-1s-userId", "search-1m-ip", "search-1m-userId");
        assertThat(all.policies().keySet()).containsExactlyElementsOf(all.names());
        // names carry no identifier value, and are the same on every call
        assertThat(String.join(",", all.names())).doesNotContain("1.2.3.4").doesNotContain("42");
        assertThat(fields(RateLimitHeaders.of(search(false), true)).names()).isEqualTo(all.names());
    }

    @Test
    void byDefaultAnAdmittedCallGetsTheMostConstrainingItemOnly() {
        RateLimitFields needed = fields(RateLimitHeaders.of(search(false), false));
        assertThat(needed.names()).containsExactly("search-1s-userId");
        assertThat(needed.remaining("search-1s-userId")).isZero();
        assertThat(needed.policies().keySet()).containsExactly("search-1s-userId");
    }

    @Test
    void aRefusedCallGetsTheRefusingItemsAndRetryAfterEqualsItsT() {
        Map<String, String> headers = RateLimitHeaders.of(search(true), false);
        RateLimitFields fields = fields(headers);
        assertThat(fields.names()).containsExactly("search-1s-userId");
        assertThat(headers.get("Retry-After")).isEqualTo(Long.toString(fields.reset("search-1s-userId")));
        assertThat(RateLimitHeaders.violatedPolicies(search(true))).containsExactly("search-1s-userId");
    }

    @Test
    void retryAfterIsWholeSecondsRoundedUpNeverZeroAndTheLatestRefusal() {
        RateLimit hello = RateLimit.of("hello", Algorithm.TOKEN_BUCKET, 5, 1000);
        RateLimit daily = RateLimit.of("daily", Algorithm.FIXED_WINDOW, 100, 86_400_000);
        Decision soon = new Decision(
                false, List.of(outcome(hello, id("#client", "ip:1.2.3.4"), false, 0, 1000, 1)), Instant.EPOCH);
        Decision both = new Decision(
                false,
                List.of(
                        outcome(hello, id("#client", "ip:1.2.3.4"), false, 0, 1000, 2001),
                        outcome(daily, id("#client", "ip:1.2.3.4"), false, 0, 5000, 4500)),
                Instant.EPOCH);
        Map<String, String> soonHeaders = RateLimitHeaders.of(soon, false);
        assertThat(soonHeaders).containsEntry("Retry-After", "1");
        assertThat(fields(soonHeaders).reset("hello")).isEqualTo(1);
        Map<String, String> bothHeaders = RateLimitHeaders.of(both, false);
        assertThat(bothHeaders).containsEntry("Retry-After", "5");
        assertThat(fields(bothHeaders).reset("daily")).isEqualTo(5);
        assertThat(fields(bothHeaders).reset("hello")).isEqualTo(3);
    }

    @Test
    void severalValuesOfOneKeyGetAHashSuffixNeverTheValue() {
        RateLimit tags = RateLimit.of("tags", Algorithm.FIXED_WINDOW, 3, 60_000);
        Decision decision = new Decision(
                true,
                List.of(
                        outcome(tags, id("#tags", "red"), true, 2, 60_000, 0),
                        outcome(tags, id("#tags", "blue"), true, 1, 60_000, 0)),
                Instant.EPOCH);
        RateLimitFields fields = fields(RateLimitHeaders.of(decision, true));
        assertThat(fields.names()).hasSize(2).allMatch(n -> n.matches("tags-tags-[0-9a-f]{6}"));
        assertThat(String.join(",", fields.names())).doesNotContain("red").doesNotContain("blue");
    }

    @Test
    void ruleKindsNameTheirItems() {
        RateLimit api = RateLimit.of("api", Algorithm.FIXED_WINDOW, 3, 60_000);
        Decision decision = new Decision(
                true,
                List.of(
                        outcome(api, id("header:X-Api-Key", "k"), true, 2, 60_000, 0),
                        outcome(api, id("client", "ip:1.2.3.4"), true, 1, 60_000, 0)),
                Instant.EPOCH);
        assertThat(fields(RateLimitHeaders.of(decision, true)).names()).containsExactly("api-x-api-key", "api");
    }
}
