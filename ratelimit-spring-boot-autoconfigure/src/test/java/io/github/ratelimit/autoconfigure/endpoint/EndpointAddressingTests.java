package io.github.ratelimit.autoconfigure.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.fixtures.SharedRedis;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The operator endpoint addresses every limit the way its own list shows it, and sees and resets exactly the counts
 * the real request path wrote: rules keyed by ip, principal, client, a header (named in any case), SpEL, a per-path
 * rule, and annotations keyed by SpEL. Each case: exhaust the limit through the filter or the annotation, read
 * {@code remaining: 0}, reset, and be admitted again.
 */
class EndpointAddressingTests {

    static final String ADDRESS = "203.0.113.9";

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    WebMvcAutoConfiguration.class,
                    RateLimitRedissonAutoConfiguration.class,
                    RateLimitRedisAutoConfiguration.class,
                    RateLimitAutoConfiguration.class,
                    io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                    RateLimitWebAutoConfiguration.class,
                    RateLimitEndpointAutoConfiguration.class))
            .withPropertyValues(
                    "spring.data.redis.url=" + SharedRedis.get().url(),
                    "ratelimit.key-prefix=addr-" + UUID.randomUUID() + ":",
                    "ratelimit.actuator.reset-enabled=true",
                    "management.endpoints.web.exposure.include=*",
                    "management.endpoints.access.default=UNRESTRICTED",
                    "ratelimit.filter.rules[0].name=by-ip",
                    "ratelimit.filter.rules[0].paths=/ip/**",
                    "ratelimit.filter.rules[0].key=ip",
                    "ratelimit.filter.rules[0].limits[0].limit=2",
                    "ratelimit.filter.rules[0].limits[0].window=1m",
                    "ratelimit.filter.rules[1].name=by-client",
                    "ratelimit.filter.rules[1].paths=/client/**",
                    "ratelimit.filter.rules[1].key=client",
                    "ratelimit.filter.rules[1].limits[0].limit=2",
                    "ratelimit.filter.rules[1].limits[0].window=1m",
                    "ratelimit.filter.rules[2].name=by-principal",
                    "ratelimit.filter.rules[2].paths=/principal/**",
                    "ratelimit.filter.rules[2].key=principal",
                    "ratelimit.filter.rules[2].limits[0].limit=2",
                    "ratelimit.filter.rules[2].limits[0].window=1m",
                    "ratelimit.filter.rules[3].name=by-header",
                    "ratelimit.filter.rules[3].paths=/header/**",
                    "ratelimit.filter.rules[3].key=header:X-Api-Key",
                    "ratelimit.filter.rules[3].limits[0].limit=2",
                    "ratelimit.filter.rules[3].limits[0].window=1m",
                    "ratelimit.filter.rules[4].name=by-spel",
                    "ratelimit.filter.rules[4].paths=/spel/**",
                    "ratelimit.filter.rules[4].key=spel:#request.getHeader('X-Tenant')",
                    "ratelimit.filter.rules[4].limits[0].limit=2",
                    "ratelimit.filter.rules[4].limits[0].window=1m",
                    "ratelimit.filter.rules[5].name=by-path",
                    "ratelimit.filter.rules[5].paths=/users/*",
                    "ratelimit.filter.rules[5].key=ip",
                    "ratelimit.filter.rules[5].per-path=true",
                    "ratelimit.filter.rules[5].limits[0].limit=2",
                    "ratelimit.filter.rules[5].limits[0].window=1m")
            .withBean(Reports.class);

    static class Reports {
        @RateLimited(limit = 2, windowMs = 60_000, key = "#client", name = "annotated-client")
        public String byClient() {
            return "ok";
        }

        @RateLimited(limit = 2, windowMs = 60_000, key = "#tenant", name = "annotated-spel")
        public String byTenant(String tenant) {
            return "ok";
        }
    }

    @Test
    void ruleKeyedByIp() {
        rule("/ip/a", r -> {}, "by-ip", "ip", ADDRESS, null);
    }

    @Test
    void ruleKeyedByClientWithoutAPrincipal() {
        rule("/client/a", r -> {}, "by-client", "client", "ip:" + ADDRESS, null);
    }

    @Test
    void ruleKeyedByClientWithAPrincipal() {
        rule("/client/a", r -> r.setUserPrincipal(principal("carol")), "by-client", "client", "principal:carol", null);
    }

    @Test
    void ruleKeyedByPrincipal() {
        rule("/principal/a", r -> r.setUserPrincipal(principal("alice")), "by-principal", "principal", "alice", null);
    }

    @Test
    void ruleKeyedByAHeaderNamedInAnyCase() {
        rule("/header/a", r -> r.addHeader("x-api-KEY", "k-1"), "by-header", "HEADER:x-Api-Key", "k-1", null);
    }

    @Test
    void ruleKeyedBySpel() {
        rule(
                "/spel/a",
                r -> r.addHeader("X-Tenant", "acme"),
                "by-spel",
                "spel:#request.getHeader('X-Tenant')",
                "acme",
                null);
    }

    @Test
    void perPathRuleIsAddressedWithThePath() {
        rule("/users/7", r -> {}, "by-path", "ip", ADDRESS, "/users/7");
    }

    @Test
    void perPathRuleWithoutAPathIsABadRequestAndOtherPathsAreUntouched() {
        runner.run(context -> {
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            assertThat(endpoint.state("by-path", "ip", ADDRESS, null).getStatus())
                    .isEqualTo(400);
            assertThat(endpoint.state("by-ip", "client", ADDRESS, null).getBody())
                    .extracting(body -> body.get("error").toString())
                    .asString()
                    .contains("its keys are [ip]");
        });
    }

    @Test
    void annotationKeyedByClient() {
        runner.run(context -> {
            Reports reports = context.getBean(Reports.class);
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            Runnable call = () -> inRequest(new MockHttpServletRequest(), reports::byClient);
            call.run();
            call.run();
            assertThatThrownBy(call::run).isInstanceOf(RateLimitExceededException.class);
            assertRemaining(endpoint.state("annotated-client", "#client", "ip:" + ADDRESS, null), 0);
            assertThat(endpoint.reset("annotated-client", "#client", "ip:" + ADDRESS, null)
                            .getStatus())
                    .isEqualTo(200);
            call.run();
        });
    }

    @Test
    void annotationKeyedByAParameter() {
        runner.run(context -> {
            Reports reports = context.getBean(Reports.class);
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            reports.byTenant("t1");
            reports.byTenant("t1");
            assertThatThrownBy(() -> reports.byTenant("t1")).isInstanceOf(RateLimitExceededException.class);
            assertRemaining(endpoint.state("annotated-spel", "#tenant", "t1", null), 0);
            assertRemaining(endpoint.state("annotated-spel", "#tenant", "t2", null), 2);
            endpoint.reset("annotated-spel", "#tenant", "t1", null);
            assertThat(reports.byTenant("t1")).isEqualTo("ok");
        });
    }

    /** Two requests admitted, the third refused; the endpoint sees 0 left; after a reset, admitted again. */
    void rule(
            String path, Consumer<MockHttpServletRequest> customize, String name, String key, String value, String at) {
        runner.run(context -> {
            jakarta.servlet.Filter filter = context.getBean("rateLimitFilter", jakarta.servlet.Filter.class);
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            assertThat(status(filter, path, customize)).isEqualTo(200);
            assertRemaining(endpoint.state(name, key, value, at), 1);
            assertThat(status(filter, path, customize)).isEqualTo(200);
            assertThat(status(filter, path, customize)).isEqualTo(429);
            assertRemaining(endpoint.state(name, key, value, at), 0);
            WebEndpointResponse<Map<String, Object>> reset = endpoint.reset(name, key, value, at);
            assertThat(reset.getStatus()).isEqualTo(200);
            assertRemaining(endpoint.state(name, key, value, at), 2);
            assertThat(status(filter, path, customize)).isEqualTo(200);
            assertListed(context, name, key);
        });
    }

    @SuppressWarnings("unchecked")
    static void assertListed(AssertableWebApplicationContext context, String name, String key) {
        List<Map<String, Object>> limits = (List<Map<String, Object>>)
                context.getBean(RateLimitsEndpoint.class).limits().get("limits");
        assertThat(limits)
                .filteredOn(l -> l.get("name").equals(name))
                .singleElement()
                .satisfies(l -> assertThat((List<Object>) l.get("keys"))
                        .contains(io.github.ratelimit.core.ClientIdentifier.normalizeKind(key)));
    }

    @SuppressWarnings("unchecked")
    static void assertRemaining(WebEndpointResponse<Map<String, Object>> response, long remaining) {
        assertThat(response.getStatus()).as(String.valueOf(response.getBody())).isEqualTo(200);
        List<Map<String, Object>> states =
                (List<Map<String, Object>>) response.getBody().get("states");
        assertThat(states).singleElement().satisfies(s -> assertThat(s.get("remaining"))
                .isEqualTo(remaining));
    }

    static int status(jakarta.servlet.Filter filter, String path, Consumer<MockHttpServletRequest> customize) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", path);
        request.setServletPath(path);
        request.setRemoteAddr(ADDRESS);
        customize.accept(request);
        MockHttpServletResponse response = new MockHttpServletResponse();
        try {
            filter.doFilter(request, response, new MockFilterChain());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return response.getStatus();
    }

    static void inRequest(MockHttpServletRequest request, Runnable call) {
        request.setRemoteAddr(ADDRESS);
        RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request, new MockHttpServletResponse()));
        try {
            call.run();
        } finally {
            RequestContextHolder.resetRequestAttributes();
        }
    }

    static Principal principal(String name) {
        return () -> name;
    }
}
