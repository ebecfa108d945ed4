package io.github.ratelimit.spring.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.decision.Exemptions;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.spring.definition.FilterRuleSpec;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.web.ClientAddresses;
import io.github.ratelimit.test.support.RateLimitFields;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** The filter on a real Redis, driven with mock servlet requests. */
class RateLimitFilterTest {

    static RedissonClient client;
    static RedisRateLimiter limiter;

    @BeforeAll
    static void start() {
        client = SharedRedis.get().newClient();
        limiter = new RedisRateLimiter(
                client,
                "filter:",
                new io.github.ratelimit.redis.RedisGuard(
                        java.time.Duration.ofSeconds(5), 5, java.time.Duration.ofSeconds(1)));
    }

    @AfterAll
    static void stop() {
        client.shutdown();
    }

    static FilterRuleSpec rule(int index, String name, List<String> paths, String key, long limit, Duration window) {
        return new FilterRuleSpec(
                name,
                paths,
                List.of(),
                List.of(new FilterRuleSpec.LimitSpec(limit, window, Algorithm.SLIDING_WINDOW)),
                key,
                FilterRuleSpec.MissingKey.REJECT,
                1,
                0,
                false,
                false,
                io.github.ratelimit.annotation.FailureMode.DEFAULT,
                io.github.ratelimit.annotation.RetryAdvice.DEFAULT,
                null,
                null,
                null,
                null);
    }

    static String unique() {
        return UUID.randomUUID().toString().substring(0, 8);
    }

    RateLimitFilter filter(List<FilterRuleSpec> rules, boolean allShadow) {
        return new RateLimitFilter(
                rules,
                List.of("/api/public/health"),
                RateLimitDecisions.builder(() -> limiter)
                        .allShadow(() -> allShadow)
                        .failureMode(() -> FailureMode.OPEN)
                        .build(),
                Plans.NONE,
                new ClientAddresses(List.of("10.0.0.0/8"), 64),
                MvcExceptionResolvers::withStarterHandlers,
                true,
                io.github.ratelimit.spring.definition.KeyResolvers.BUILT_IN);
    }

    /** The decision flow of {@link #filter}, with trusted callers and operators' blocks. */
    RateLimitDecisions decisions(Exemptions exemptions, io.github.ratelimit.core.ClientBlocks blocks) {
        return RateLimitDecisions.builder(() -> limiter)
                .failureMode(() -> FailureMode.OPEN)
                .localLimits(100, () -> 1)
                .exemptions(exemptions)
                .blocks(() -> blocks)
                .build();
    }

    static RateLimitFields fields(MockHttpServletResponse response) {
        return RateLimitFields.parse(response.getHeader("RateLimit-Policy"), response.getHeader("RateLimit"));
    }

    static MockHttpServletResponse call(
            RateLimitFilter filter, String method, String path, String peer, String... headers) throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest(method, path);
        request.setRemoteAddr(peer);
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.addHeader(headers[i], headers[i + 1]);
        }
        MockHttpServletResponse response = new MockHttpServletResponse();
        filter.doFilter(request, response, new MockFilterChain());
        return response;
    }

    @Test
    void admitsExactlyTheLimitWithHeadersThenAnswers429() throws Exception {
        String name = "public-" + unique();
        RateLimitFilter filter =
                filter(List.of(rule(0, name, List.of("/api/public/**"), "ip", 3, Duration.ofMinutes(1))), false);
        for (int i = 0; i < 3; i++) {
            MockHttpServletResponse ok = call(filter, "GET", "/api/public/ping", "203.0.113.1");
            assertThat(ok.getStatus()).isEqualTo(200);
            RateLimitFields fields = fields(ok);
            assertThat(fields.names()).containsExactly(name + "-ip");
            assertThat(fields.quota(name + "-ip")).isEqualTo(3);
            assertThat(fields.window(name + "-ip")).isEqualTo(60);
            assertThat(fields.remaining(name + "-ip")).isEqualTo(2 - i);
            assertThat(fields.reset(name + "-ip")).isEqualTo(60);
        }
        MockHttpServletResponse limited = call(filter, "GET", "/api/public/ping", "203.0.113.1");
        assertThat(limited.getStatus()).isEqualTo(429);
        assertThat(limited.getHeader("Retry-After")).isNotNull();
        assertThat(limited.getContentType()).isEqualTo("application/problem+json");
        assertThat(limited.getContentAsString())
                .contains("\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\"")
                .contains("\"violated-policies\":[\"" + name + "-ip\"]");
        assertThat(call(filter, "GET", "/api/public/ping", "203.0.113.2").getStatus())
                .isEqualTo(200);
        assertThat(call(filter, "GET", "/api/private", "203.0.113.1").getHeader("RateLimit"))
                .isNull();
        assertThat(call(filter, "GET", "/api/public/health", "203.0.113.1").getStatus())
                .isEqualTo(200);
    }

    /**
     * The container's path is already decoded: a {@code %} in it (the client sent {@code %25}, or a malformed
     * {@code %zz} the container let through) is a character, matched as it is, never decoded again: no 500, and
     * {@code /api/%2541} is not {@code /api/A}.
     */
    @Test
    void aPercentInTheDecodedPathIsACharacterNeverDecodedAgain() throws Exception {
        String name = "catalog-" + unique();
        RateLimitFilter filter = filter(
                List.of(
                        rule(0, name, List.of("/api/catalog/**"), "ip", 1, Duration.ofMinutes(1)),
                        rule(1, name + "-a", List.of("/api/A"), "ip", 1, Duration.ofMinutes(1))),
                false);
        assertThat(routed(filter, "/api/catalog/%zz").getStatus()).isEqualTo(200);
        assertThat(routed(filter, "/api/catalog/%zz").getStatus())
                .as("the rule still applies to it")
                .isEqualTo(429);
        assertThat(routed(filter, "/api/%41").getHeader("RateLimit"))
                .as("not the rule of /api/A")
                .isNull();
        assertThat(routed(filter, "/api/%").getStatus()).isEqualTo(200);
        // without a servlet path, the request's URI is decoded as the container would, or kept when it cannot be
        assertThat(call(filter, "GET", "/api/catalog/%zz", "203.0.113.9").getStatus())
                .isEqualTo(200);
        assertThat(call(filter, "GET", "/api/%41", "203.0.113.9").getHeader("RateLimit"))
                .as("the rule of /api/A")
                .isNotNull();
    }

    /** A request as a container routes it: the servlet path decoded, the URI as the client sent it. */
    static MockHttpServletResponse routed(RateLimitFilter filter, String decodedPath) throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/raw");
        request.setServletPath(decodedPath);
        request.setRemoteAddr("203.0.113.7");
        MockHttpServletResponse response = new MockHttpServletResponse();
        filter.doFilter(request, response, new MockFilterChain());
        return response;
    }

    /**
     * A rule with {@code wait: 2s} and a limit of 1 per 300 ms: a second request waits for its slot and is admitted;
     * with a limit of 1 per minute, the wait could not end in time, so the second request is refused at once.
     */
    @Test
    void aRulesWaitLetsARefusedRequestWaitForItsSlotWhenItComesInTime() throws Exception {
        String name = "wait-" + unique();
        FilterRuleSpec soon = withWait(rule(0, name, List.of("/soon"), "ip", 1, Duration.ofMillis(300)));
        FilterRuleSpec late = withWait(rule(1, name + "-late", List.of("/late"), "ip", 1, Duration.ofMinutes(1)));
        RateLimitFilter filter = filter(List.of(soon, late), false);
        assertThat(call(filter, "GET", "/soon", "203.0.113.2").getStatus()).isEqualTo(200);
        long started = System.nanoTime();
        assertThat(call(filter, "GET", "/soon", "203.0.113.2").getStatus()).isEqualTo(200);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofMillis(150));

        assertThat(call(filter, "GET", "/late", "203.0.113.2").getStatus()).isEqualTo(200);
        MockHttpServletResponse refused = call(filter, "GET", "/late", "203.0.113.2");
        assertThat(refused.getStatus()).isEqualTo(429);
        assertThat(Long.parseLong(refused.getHeader("Retry-After"))).isGreaterThan(50);
    }

    private static FilterRuleSpec withWait(FilterRuleSpec rule) {
        return new FilterRuleSpec(
                rule.name(),
                rule.paths(),
                rule.methods(),
                rule.limits(),
                rule.key(),
                rule.missingKey(),
                rule.cost(),
                rule.order(),
                rule.shadow(),
                rule.perPath(),
                rule.failureMode(),
                rule.retryAdvice(),
                rule.plans(),
                rule.plan(),
                rule.countOn(),
                Duration.ofSeconds(2));
    }

    /**
     * Exempt callers ({@code ratelimit.exempt}): an address block and an internal key header. Their requests are never
     * limited, get no RateLimit fields, and are not counted: a rule keyed by a constant admits exactly its limit to
     * others afterwards.
     */
    @Test
    void exemptCallersAreNeitherLimitedNorCounted() throws Exception {
        Exemptions exempt = Exemptions.of(
                List.of("198.51.100.0/24"), List.of(), java.util.Map.of("X-Internal-Key", List.of("s3cret")));
        String name = "exempt-" + unique();
        RateLimitFilter filter = new RateLimitFilter(
                List.of(rule(0, name, List.of("/shared"), "spel:'everyone'", 3, Duration.ofMinutes(1))),
                List.of(),
                decisions(exempt, null),
                Plans.NONE,
                new ClientAddresses(List.of(), 64),
                MvcExceptionResolvers::withStarterHandlers,
                true,
                io.github.ratelimit.spring.definition.KeyResolvers.BUILT_IN);
        for (int i = 0; i < 5; i++) {
            MockHttpServletResponse byAddress = call(filter, "GET", "/shared", "198.51.100.7");
            assertThat(byAddress.getStatus()).isEqualTo(200);
            assertThat(byAddress.getHeader("RateLimit")).isNull();
            assertThat(call(filter, "GET", "/shared", "203.0.113.60", "X-Internal-Key", "s3cret")
                            .getStatus())
                    .isEqualTo(200);
        }
        List<Integer> others = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            others.add(call(filter, "GET", "/shared", "203.0.113.61", "X-Internal-Key", "wrong")
                    .getStatus());
        }
        assertThat(others).containsExactly(200, 200, 200, 429);
    }

    /**
     * An operator's block of an API key ({@code header:X-Api-Key}) refuses every request carrying it, although the
     * rule counts by address; the time left is the advice. Requests without the key are served.
     */
    @Test
    void aBlockedApiKeyIsRefusedWhateverKeyTheRuleUses() throws Exception {
        io.github.ratelimit.redis.limits.RedisBlocks blocks = new io.github.ratelimit.redis.limits.RedisBlocks(
                client,
                new io.github.ratelimit.redis.RedisGuard(
                        java.time.Duration.ofSeconds(5), 5, java.time.Duration.ofSeconds(1)),
                "filter-blocks-" + unique() + ":",
                Duration.ofMinutes(1));
        try {
            blocks.start();
            blocks.block(
                    io.github.ratelimit.core.ClientIdentifier.of("header:X-Api-Key", "k-bad"), Duration.ofMinutes(5));
            RateLimitFilter filter = new RateLimitFilter(
                    List.of(rule(0, "by-ip-" + unique(), List.of("/by-ip"), "ip", 100, Duration.ofMinutes(1))),
                    List.of(),
                    decisions(Exemptions.NONE, blocks),
                    Plans.NONE,
                    new ClientAddresses(List.of(), 64),
                    MvcExceptionResolvers::withStarterHandlers,
                    true,
                    io.github.ratelimit.spring.definition.KeyResolvers.BUILT_IN);
            MockHttpServletResponse refused = call(filter, "GET", "/by-ip", "203.0.113.80", "X-Api-Key", "k-bad");
            assertThat(refused.getStatus()).isEqualTo(429);
            assertThat(Long.parseLong(refused.getHeader("Retry-After"))).isBetween(290L, 300L);
            assertThat(call(filter, "GET", "/by-ip", "203.0.113.80").getStatus())
                    .isEqualTo(200);
            assertThat(call(filter, "GET", "/by-ip", "203.0.113.81", "X-Api-Key", "k-good")
                            .getStatus())
                    .isEqualTo(200);
        } finally {
            blocks.close();
        }
    }

    @Test
    void keysUseTheMatchedRuleNotTheRawPathUnlessPerPath() throws Exception {
        String shared = "users-" + unique();
        RateLimitFilter filter =
                filter(List.of(rule(0, shared, List.of("/users/{id}"), "ip", 2, Duration.ofMinutes(1))), false);
        assertThat(call(filter, "GET", "/users/1", "203.0.113.5").getStatus()).isEqualTo(200);
        assertThat(call(filter, "GET", "/users/2", "203.0.113.5").getStatus()).isEqualTo(200);
        assertThat(call(filter, "GET", "/users/3", "203.0.113.5").getStatus()).isEqualTo(429);

        String perPathName = "per-path-" + unique();
        FilterRuleSpec perPath = new FilterRuleSpec(
                perPathName,
                List.of("/items/{id}"),
                List.of(),
                List.of(new FilterRuleSpec.LimitSpec(1, Duration.ofMinutes(1), Algorithm.FIXED_WINDOW)),
                "ip",
                FilterRuleSpec.MissingKey.REJECT,
                1,
                0,
                false,
                true,
                io.github.ratelimit.annotation.FailureMode.DEFAULT,
                io.github.ratelimit.annotation.RetryAdvice.DEFAULT,
                null,
                null,
                null,
                null);
        RateLimitFilter perPathFilter = filter(List.of(perPath), false);
        assertThat(call(perPathFilter, "GET", "/items/1", "203.0.113.5").getStatus())
                .isEqualTo(200);
        assertThat(call(perPathFilter, "GET", "/items/2", "203.0.113.5").getStatus())
                .isEqualTo(200);
        assertThat(call(perPathFilter, "GET", "/items/1", "203.0.113.5").getStatus())
                .isEqualTo(429);
    }

    @Test
    void allMatchingRulesAreDecidedInOneRoundTripAllOrNothing() throws Exception {
        String wide = "wide-" + unique();
        String narrow = "narrow-" + unique();
        FilterRuleSpec wideRule = rule(0, wide, List.of("/api/**"), "ip", 10, Duration.ofMinutes(1));
        FilterRuleSpec narrowRule = new FilterRuleSpec(
                narrow,
                List.of("/api/orders/**"),
                List.of("POST"),
                List.of(
                        new FilterRuleSpec.LimitSpec(2, Duration.ofSeconds(10), Algorithm.SLIDING_WINDOW),
                        new FilterRuleSpec.LimitSpec(5, Duration.ofHours(1), Algorithm.TOKEN_BUCKET)),
                "header:X-Api-Key",
                FilterRuleSpec.MissingKey.REJECT,
                1,
                0,
                false,
                false,
                io.github.ratelimit.annotation.FailureMode.DEFAULT,
                io.github.ratelimit.annotation.RetryAdvice.DEFAULT,
                null,
                null,
                null,
                null);
        RateLimitFilter filter = filter(List.of(wideRule, narrowRule), false);
        call(filter, "POST", "/api/orders/1", "203.0.113.7", "X-Api-Key", "k1"); // scripts cached

        long before = RedisCommands.commandCalls(client, "evalsha");
        MockHttpServletResponse second = call(filter, "POST", "/api/orders/1", "203.0.113.7", "X-Api-Key", "k1");
        long after = RedisCommands.commandCalls(client, "evalsha");
        MockHttpServletResponse third = call(filter, "POST", "/api/orders/1", "203.0.113.7", "X-Api-Key", "k1");
        MockHttpServletResponse get = call(filter, "GET", "/api/orders/1", "203.0.113.7");

        assertThat(after - before).isEqualTo(1);
        assertThat(second.getStatus()).isEqualTo(200);
        assertThat(fields(second).names()).hasSize(3);
        assertThat(third.getStatus()).isEqualTo(429);
        // the refused POST took nothing from the wide rule: 2 admitted so far, so 8 remain before this GET
        assertThat(get.getStatus()).isEqualTo(200);
        assertThat(fields(get).names()).containsExactly(wide + "-ip");
        assertThat(fields(get).remaining(wide + "-ip")).isEqualTo(7);
    }

    @Test
    void aForgedForwardedForDoesNotHelpAndATrustedProxyNamesTheClient() throws Exception {
        String name = "forged-" + unique();
        RateLimitFilter filter = filter(List.of(rule(0, name, List.of("/**"), "ip", 1, Duration.ofMinutes(1))), false);
        assertThat(call(filter, "GET", "/x", "203.0.113.20", "X-Forwarded-For", "1.1.1.1")
                        .getStatus())
                .isEqualTo(200);
        assertThat(call(filter, "GET", "/x", "203.0.113.20", "X-Forwarded-For", "2.2.2.2")
                        .getStatus())
                .isEqualTo(429);
        // through the trusted proxy 10.0.0.1, two different clients
        assertThat(call(filter, "GET", "/x", "10.0.0.1", "X-Forwarded-For", "198.51.100.1")
                        .getStatus())
                .isEqualTo(200);
        assertThat(call(filter, "GET", "/x", "10.0.0.1", "X-Forwarded-For", "198.51.100.2")
                        .getStatus())
                .isEqualTo(200);
        assertThat(call(filter, "GET", "/x", "10.0.0.1", "X-Forwarded-For", "9.9.9.9, 198.51.100.1")
                        .getStatus())
                .isEqualTo(429);
        assertThat(call(filter, "GET", "/x", "10.0.0.1", "X-Forwarded-For", "x".repeat(8192))
                        .getStatus())
                .isEqualTo(200); // junk: the proxy itself is the client
    }

    @Test
    void missingHeaderKeyIsRejectedOrFallsBackToTheIp() throws Exception {
        String name = "keyed-" + unique();
        RateLimitFilter reject =
                filter(List.of(rule(0, name, List.of("/**"), "header:X-Api-Key", 5, Duration.ofMinutes(1))), false);
        MockHttpServletResponse missing = call(reject, "GET", "/x", "203.0.113.30");
        MockHttpServletResponse tooLong = call(reject, "GET", "/x", "203.0.113.30", "X-Api-Key", "k".repeat(8192));
        assertThat(missing.getStatus()).isEqualTo(400);
        assertThat(missing.getContentAsString()).contains("X-Api-Key");
        assertThat(tooLong.getStatus()).isEqualTo(400);
        assertThat(tooLong.getContentAsString()).doesNotContain("kkkk");

        FilterRuleSpec fallback = new FilterRuleSpec(
                "fallback-" + unique(),
                List.of("/**"),
                List.of(),
                List.of(new FilterRuleSpec.LimitSpec(1, Duration.ofMinutes(1), Algorithm.FIXED_WINDOW)),
                "header:X-Api-Key",
                FilterRuleSpec.MissingKey.IP,
                1,
                0,
                false,
                false,
                io.github.ratelimit.annotation.FailureMode.DEFAULT,
                io.github.ratelimit.annotation.RetryAdvice.DEFAULT,
                null,
                null,
                null,
                null);
        RateLimitFilter byIp = filter(List.of(fallback), false);
        assertThat(call(byIp, "GET", "/x", "203.0.113.31").getStatus()).isEqualTo(200);
        assertThat(call(byIp, "GET", "/x", "203.0.113.31").getStatus()).isEqualTo(429);
        assertThat(call(byIp, "GET", "/x", "203.0.113.32").getStatus()).isEqualTo(200);
        assertThat(call(byIp, "GET", "/x", "203.0.113.31", "X-Api-Key", "key-a").getStatus())
                .isEqualTo(200);
    }

    @Test
    void shadowModeNeverRejectsAndStillCounts() throws Exception {
        String name = "shadow-" + unique();
        FilterRuleSpec shadow = new FilterRuleSpec(
                name,
                List.of("/**"),
                List.of(),
                List.of(new FilterRuleSpec.LimitSpec(2, Duration.ofMinutes(1), Algorithm.SLIDING_WINDOW)),
                "ip",
                FilterRuleSpec.MissingKey.REJECT,
                1,
                0,
                true,
                false,
                io.github.ratelimit.annotation.FailureMode.DEFAULT,
                io.github.ratelimit.annotation.RetryAdvice.DEFAULT,
                null,
                null,
                null,
                null);
        RateLimitFilter filter = filter(List.of(shadow), false);
        List<Long> remaining = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            MockHttpServletResponse response = call(filter, "GET", "/x", "203.0.113.40");
            assertThat(response.getStatus()).isEqualTo(200);
            assertThat(response.getHeader("Retry-After")).isNull();
            remaining.add(fields(response).remaining(name + "-ip"));
        }
        assertThat(remaining).containsExactly(1L, 0L, 0L, 0L, 0L);

        // the same rule enforced sees the shadow traffic: the budget is spent
        FilterRuleSpec enforced = new FilterRuleSpec(
                name,
                List.of("/**"),
                List.of(),
                List.of(new FilterRuleSpec.LimitSpec(2, Duration.ofMinutes(1), Algorithm.SLIDING_WINDOW)),
                "ip",
                FilterRuleSpec.MissingKey.REJECT,
                1,
                0,
                false,
                false,
                io.github.ratelimit.annotation.FailureMode.DEFAULT,
                io.github.ratelimit.annotation.RetryAdvice.DEFAULT,
                null,
                null,
                null,
                null);
        assertThat(call(filter(List.of(enforced), false), "GET", "/x", "203.0.113.40")
                        .getStatus())
                .isEqualTo(429);
        // and the global switch puts an enforced rule in shadow mode
        assertThat(call(filter(List.of(enforced), true), "GET", "/x", "203.0.113.40")
                        .getStatus())
                .isEqualTo(200);
    }
}
