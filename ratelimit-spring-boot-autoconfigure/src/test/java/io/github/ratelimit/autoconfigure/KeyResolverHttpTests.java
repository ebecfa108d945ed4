package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.core.KeyResolver;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.support.RateLimitFields;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * An application's own kind of key: a {@link KeyResolver} bean, named in an annotation's {@code key} and in a rule's
 * {@code key}, counts each of its values apart; a call without one is answered 400, never counted in a shared bucket;
 * a name that is no kind fails the start, naming where it was written.
 */
class KeyResolverHttpTests {

    @RestController
    static class Reports {
        @GetMapping("/reports")
        @RateLimited(name = "reports", limit = 2, windowMs = 60_000, key = "tenant")
        String report() {
            return "ok";
        }

        @GetMapping("/ruled/ping")
        String ping() {
            return "pong";
        }
    }

    /** Bare words that SpEL reads (a root property, a literal) stay SpEL, as before key kinds existed. */
    @RestController
    static class SpelWords {
        @GetMapping("/everyone")
        @RateLimited(name = "everyone", limit = 2, windowMs = 60_000, key = "true")
        String everyone() {
            return "ok";
        }
    }

    @RestController
    static class Misnamed {
        @GetMapping("/misnamed")
        @RateLimited(limit = 2, windowMs = 60_000, key = "tennant")
        String report() {
            return "ok";
        }
    }

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    WebMvcAutoConfiguration.class,
                    RateLimitRedissonAutoConfiguration.class,
                    RateLimitRedisAutoConfiguration.class,
                    RateLimitAutoConfiguration.class,
                    io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                    RateLimitWebAutoConfiguration.class))
            .withPropertyValues(
                    "spring.data.redis.url=" + SharedRedis.get().url(),
                    "ratelimit.key-prefix=key-resolver-" + UUID.randomUUID() + ":");

    static MockHttpServletResponse get(MockMvc mvc, String path, String tenant) throws Exception {
        var request = MockMvcRequestBuilders.get(path);
        if (tenant != null) {
            request.header("X-Tenant", tenant);
        }
        return mvc.perform(request).andReturn().getResponse();
    }

    static List<Integer> statuses(MockMvc mvc, String path, String tenant, int calls) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            statuses.add(get(mvc, path, tenant).getStatus());
        }
        return statuses;
    }

    @Test
    void anAnnotationAndARuleCountEachTenantApart() {
        runner.withBean("tenant", KeyResolver.class, () -> caller -> caller.header("X-Tenant"))
                .withBean(Reports.class)
                .withPropertyValues(
                        "ratelimit.filter.rules[0].name=ruled",
                        "ratelimit.filter.rules[0].paths=/ruled/**",
                        "ratelimit.filter.rules[0].limits[0].limit=3",
                        "ratelimit.filter.rules[0].limits[0].window=1m",
                        "ratelimit.filter.rules[0].key=tenant")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context)
                            .addFilters(context.getBean("rateLimitFilter", jakarta.servlet.Filter.class))
                            .build();
                    String acme = "acme-" + UUID.randomUUID();
                    String globex = "globex-" + UUID.randomUUID();

                    assertThat(statuses(mvc, "/reports", acme, 3)).containsExactly(200, 200, 429);
                    assertThat(statuses(mvc, "/reports", globex, 1)).containsExactly(200);
                    MockHttpServletResponse missing = get(mvc, "/reports", null);
                    assertThat(missing.getStatus()).isEqualTo(400);
                    assertThat(RateLimitFields.parse(
                                            get(mvc, "/reports", globex).getHeader("RateLimit-Policy"),
                                            get(mvc, "/reports", globex).getHeader("RateLimit"))
                                    .names())
                            .as("the item names the kind")
                            .containsExactly("reports-tenant");

                    assertThat(statuses(mvc, "/ruled/ping", acme, 4)).containsExactly(200, 200, 200, 429);
                    assertThat(statuses(mvc, "/ruled/ping", globex, 1)).containsExactly(200);
                    assertThat(get(mvc, "/ruled/ping", null).getStatus())
                            .as("a rule's missing key is refused by default")
                            .isEqualTo(400);
                });
    }

    @Test
    void bareWordsThatSpelReadsStaySpel() {
        runner.withBean(SpelWords.class).run(context -> {
            assertThat(context).hasNotFailed();
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            assertThat(statuses(mvc, "/everyone", null, 3))
                    .as("one bucket for every caller, as the constant key says")
                    .containsExactly(200, 200, 429);
        });
    }

    @Test
    void aKeyThatNamesNoKindFailsTheStartNamingTheMethod() {
        runner.withBean("tenant", KeyResolver.class, () -> caller -> caller.header("X-Tenant"))
                .withBean(Misnamed.class)
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .hasStackTraceContaining("Misnamed.report()")
                        .hasStackTraceContaining("key 'tennant' names no key kind")
                        .hasStackTraceContaining("[tenant]"));
    }

    @Test
    void aRuleKeyThatNamesNoKindFailsTheStartNamingTheProperty() {
        runner.withPropertyValues(
                        "ratelimit.filter.rules[0].paths=/x/**",
                        "ratelimit.filter.rules[0].limits[0].limit=3",
                        "ratelimit.filter.rules[0].limits[0].window=1m",
                        "ratelimit.filter.rules[0].key=tenant")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("ratelimit.filter.rules[0].key")
                        .hasMessageContaining("names no key kind"));
    }

    @Test
    void aResolverBeanMayNotTakeABuiltInKindsName() {
        runner.withBean("ip", KeyResolver.class, () -> caller -> "x").run(context -> assertThat(context)
                .hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("KeyResolver bean 'ip' takes the name of a built-in key kind"));
    }
}
