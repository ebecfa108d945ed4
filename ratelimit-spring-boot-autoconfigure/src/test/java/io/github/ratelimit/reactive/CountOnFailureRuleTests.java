package io.github.ratelimit.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.reactive.RateLimitReactiveWebAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.support.NoBlockingCalls;
import jakarta.servlet.Filter;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * A rule with {@code count-on: failure} (a login path that counts failed answers only), on both stacks: successful
 * answers take nothing, each answer of 400 or more takes one, and once the failures have used the budget every call of
 * that client is refused, a successful one too, until the window frees it. Other clients are not touched.
 */
@ExtendWith(NoBlockingCalls.class)
class CountOnFailureRuleTests {

    static final String[] RULE = {
        "ratelimit.filter.rules[0].name=logins",
        "ratelimit.filter.rules[0].paths=/login",
        "ratelimit.filter.rules[0].key=header:X-User",
        "ratelimit.filter.rules[0].count-on=failure",
        "ratelimit.filter.rules[0].limits[0].limit=2",
        "ratelimit.filter.rules[0].limits[0].window=1m"
    };

    @RestController
    static class ServletLogin {
        @GetMapping("/login")
        ResponseEntity<String> login(@RequestParam boolean ok) {
            return ok
                    ? ResponseEntity.ok("welcome")
                    : ResponseEntity.status(401).body("wrong password");
        }
    }

    @RestController
    static class ReactiveLogin {
        @GetMapping("/login")
        Mono<ResponseEntity<String>> login(@RequestParam boolean ok) {
            return Mono.just(
                    ok
                            ? ResponseEntity.ok("welcome")
                            : ResponseEntity.status(401).body("wrong password"));
        }
    }

    /** Five good logins, two bad ones, then a good and a bad one; and a good one of another user. */
    static void assertOnlyFailuresCount(BiFunction<String, Boolean, Integer> login) {
        String user = "u-" + UUID.randomUUID();
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            statuses.add(login.apply(user, true));
        }
        statuses.add(login.apply(user, false));
        statuses.add(login.apply(user, false));
        statuses.add(login.apply(user, true));
        statuses.add(login.apply(user, false));

        assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 401, 401, 429, 429);
        assertThat(login.apply("other-" + UUID.randomUUID(), false)).isEqualTo(401);
    }

    @Test
    void onServlets() {
        new WebApplicationContextRunner()
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
                        "ratelimit.key-prefix=count-on-failure-" + UUID.randomUUID() + ":")
                .withPropertyValues(RULE)
                .withBean(ServletLogin.class)
                .run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context)
                            .addFilters(context.getBean("rateLimitFilter", Filter.class))
                            .build();
                    assertOnlyFailuresCount((user, ok) -> {
                        try {
                            return mvc.perform(MockMvcRequestBuilders.get("/login?ok=" + ok)
                                            .header("X-User", user))
                                    .andReturn()
                                    .getResponse()
                                    .getStatus();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                });
    }

    @Test
    void onWebFlux() {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        JacksonAutoConfiguration.class,
                        CodecsAutoConfiguration.class,
                        WebFluxAutoConfiguration.class,
                        HttpHandlerAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitReactiveWebAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.url=" + SharedRedis.get().url(),
                        "ratelimit.redis.require-at-startup=true",
                        "ratelimit.redis.connect-timeout=20s", // the first connection on a busy machine
                        "ratelimit.key-prefix=count-on-failure-" + UUID.randomUUID() + ":")
                .withPropertyValues(RULE)
                .withBean(ReactiveLogin.class)
                .run(context -> {
                    WebTestClient client =
                            WebTestClient.bindToApplicationContext(context).build();
                    assertOnlyFailuresCount((user, ok) -> client.get()
                            .uri("/login?ok=" + ok)
                            .header("X-User", user)
                            .exchange()
                            .returnResult(String.class)
                            .getStatus()
                            .value());
                });
    }
}
