package io.github.ratelimit.spring.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.decision.Fallbacks;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.definition.FilterRuleSpec;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.web.ClientAddresses;
import io.github.ratelimit.test.support.RateLimitFields;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** How a decision that Redis could not make is answered over HTTP (the Redis faults are tested elsewhere). */
class RedisUnavailableMappingTest {

    private final RateLimiter unavailable = requests -> {
        throw new RedisUnavailableException("Redis did not answer within 200 ms", Duration.ofMillis(1500), null);
    };

    RateLimitFilter filter(FailureMode failureMode, Fallbacks fallbacks) {
        FilterRuleSpec rule = new FilterRuleSpec(
                "r",
                List.of("/**"),
                List.of(),
                List.of(new FilterRuleSpec.LimitSpec(1, Duration.ofMinutes(1), Algorithm.SLIDING_WINDOW)),
                "ip",
                FilterRuleSpec.MissingKey.REJECT,
                1,
                0,
                false,
                false,
                failureMode,
                io.github.ratelimit.annotation.RetryAdvice.DEFAULT,
                null,
                null,
                null,
                null);
        return new RateLimitFilter(
                List.of(rule),
                List.of(),
                RateLimitDecisions.builder(() -> unavailable)
                        .failureMode(() -> FailureMode.OPEN)
                        .fallbacks(fallbacks)
                        .build(),
                Plans.NONE,
                new ClientAddresses(List.of(), 64),
                MvcExceptionResolvers::withStarterHandlers,
                true,
                io.github.ratelimit.spring.definition.KeyResolvers.BUILT_IN);
    }

    static MockHttpServletResponse call(RateLimitFilter filter) throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/x");
        request.setRemoteAddr("203.0.113.1");
        MockHttpServletResponse response = new MockHttpServletResponse();
        MockFilterChain chain = new MockFilterChain();
        filter.doFilter(request, response, chain);
        return response;
    }

    @Test
    void failOpenLetsTheRequestThroughWithoutHeadersAndCountsIt() throws Exception {
        Fallbacks fallbacks = new Fallbacks();
        MockHttpServletResponse response = call(filter(FailureMode.DEFAULT, fallbacks));
        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(response.getHeader("RateLimit")).isNull();
        assertThat(fallbacks.failedOpen()).isEqualTo(1);
    }

    @Test
    void localDecidesInMemoryAndAnswersAsRedisWouldWithTheLocalQuota() throws Exception {
        Fallbacks fallbacks = new Fallbacks();
        RateLimitFilter filter = filter(FailureMode.LOCAL, fallbacks);
        MockHttpServletResponse admitted = call(filter);
        assertThat(admitted.getStatus()).isEqualTo(200);
        RateLimitFields fields =
                RateLimitFields.parse(admitted.getHeader("RateLimit-Policy"), admitted.getHeader("RateLimit"));
        String name = fields.names().get(0);
        assertThat(fields.quota(name)).isEqualTo(1);
        assertThat(fields.window(name)).isEqualTo(60);
        assertThat(fields.remaining(name)).isZero();
        MockHttpServletResponse refused = call(filter);
        assertThat(refused.getStatus()).isEqualTo(429);
        // advice from memory goes no further than the time until Redis is asked again (1.5 s here), not the 60 s window
        assertThat(refused.getHeader("Retry-After")).isEqualTo("2");
        RateLimitFields refusedFields =
                RateLimitFields.parse(refused.getHeader("RateLimit-Policy"), refused.getHeader("RateLimit"));
        assertThat(refusedFields.remaining(name)).isZero();
        assertThat(refusedFields.reset(name)).isBetween(1L, 2L);
        assertThat(fallbacks.decidedLocally()).isEqualTo(2);
        assertThat(fallbacks.failedOpen()).isZero();
    }

    @Test
    void failClosedAnswers503WithRetryAfter() throws Exception {
        Fallbacks fallbacks = new Fallbacks();
        MockHttpServletResponse response = call(filter(FailureMode.CLOSED, fallbacks));
        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getHeader("Retry-After")).isEqualTo("2");
        assertThat(response.getContentType()).isEqualTo("application/problem+json");
        assertThat(response.getContentAsString()).contains("\"status\":503");
        assertThat(fallbacks.failedClosed()).isEqualTo(1);
    }

    @Test
    void handlerAnswers503ForAnnotationsTokensAndLocks() {
        var answer = new RedisUnavailableHandler()
                .redisUnavailable(
                        new RedisUnavailableException("down", Duration.ofMillis(300), null),
                        new org.springframework.mock.web.MockHttpServletRequest("POST", "/api/tokens"));
        assertThat(answer.getStatusCode().value()).isEqualTo(503);
        assertThat(answer.getBody().getInstance()).hasToString("/api/tokens");
        assertThat(answer.getHeaders().getFirst("Retry-After")).isEqualTo("1");
    }
}
