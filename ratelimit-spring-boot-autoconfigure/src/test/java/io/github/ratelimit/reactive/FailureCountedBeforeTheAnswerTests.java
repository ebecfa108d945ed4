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
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * A rule with {@code count-on: failure} counts a failed answer before any of it can reach the client: a handler that
 * has written and flushed its 401 but not returned yet (a slow one, or one still streaming) has already used the
 * budget, so the caller's next call, sent the moment the 401 arrives, is refused. Counting when the chain returns let
 * that call through, on both stacks.
 */
@ExtendWith(NoBlockingCalls.class)
class FailureCountedBeforeTheAnswerTests {

    static final String[] RULE = {
        "ratelimit.filter.rules[0].name=logins",
        "ratelimit.filter.rules[0].paths=/login",
        "ratelimit.filter.rules[0].key=header:X-User",
        "ratelimit.filter.rules[0].count-on=failure",
        "ratelimit.filter.rules[0].limits[0].limit=1",
        "ratelimit.filter.rules[0].limits[0].window=1m"
    };

    /** Set when a failed answer has been flushed; the handler then holds on until released. */
    static final class Gate {
        final CountDownLatch flushed = new CountDownLatch(1);
        final CompletableFuture<Void> release = new CompletableFuture<>();
    }

    @RestController
    static class ServletLogin {
        final Gate gate = new Gate();

        @GetMapping("/login")
        void login(@RequestParam boolean ok, HttpServletResponse response) throws IOException {
            if (ok) {
                response.getWriter().write("welcome");
                return;
            }
            response.setStatus(401);
            response.getWriter().write("wrong password");
            response.flushBuffer();
            gate.flushed.countDown();
            gate.release.join();
        }
    }

    @RestController
    static class ReactiveLogin {
        final Gate gate = new Gate();

        @GetMapping("/login")
        Mono<Void> login(@RequestParam boolean ok, ServerWebExchange exchange) {
            var response = exchange.getResponse();
            if (ok) {
                return response.writeWith(
                        Mono.just(response.bufferFactory().wrap("welcome".getBytes(StandardCharsets.UTF_8))));
            }
            response.setStatusCode(HttpStatus.UNAUTHORIZED);
            return response.writeAndFlushWith(Mono.just(Mono.just(
                            response.bufferFactory().wrap("wrong password".getBytes(StandardCharsets.UTF_8)))))
                    .then(Mono.fromRunnable(gate.flushed::countDown))
                    .then(Mono.fromFuture(gate.release));
        }
    }

    interface Login {
        int status(String user, boolean ok) throws Exception;
    }

    /** A failed login held open after its answer was flushed; meanwhile the same user's good login is refused. */
    static void assertCountedBeforeTheAnswer(Gate gate, Login login) throws Exception {
        String user = "u-" + UUID.randomUUID();
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> failed = caller.submit(() -> login.status(user, false));
            assertThat(gate.flushed.await(10, TimeUnit.SECONDS)).isTrue();

            int next = login.status(user, true);

            gate.release.complete(null);
            assertThat(failed.get(10, TimeUnit.SECONDS)).isEqualTo(401);
            assertThat(next).as("the failure was counted when it was answered").isEqualTo(429);
        } finally {
            gate.release.complete(null);
            caller.shutdownNow();
        }
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
                        "ratelimit.redis.require-at-startup=true",
                        "ratelimit.redis.connect-timeout=20s", // the first connection on a busy machine
                        "ratelimit.key-prefix=counted-first-" + UUID.randomUUID() + ":")
                .withPropertyValues(RULE)
                .withBean(ServletLogin.class)
                .run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context)
                            .addFilters(context.getBean("rateLimitFilter", Filter.class))
                            .build();
                    assertCountedBeforeTheAnswer(context.getBean(ServletLogin.class).gate, (user, ok) -> mvc.perform(
                                    MockMvcRequestBuilders.get("/login?ok=" + ok)
                                            .header("X-User", user))
                            .andReturn()
                            .getResponse()
                            .getStatus());
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
                        "ratelimit.key-prefix=counted-first-" + UUID.randomUUID() + ":")
                .withPropertyValues(RULE)
                .withBean(ReactiveLogin.class)
                .run(context -> {
                    WebTestClient client = WebTestClient.bindToApplicationContext(context)
                            .configureClient()
                            .responseTimeout(java.time.Duration.ofSeconds(20))
                            .build();
                    assertCountedBeforeTheAnswer(context.getBean(ReactiveLogin.class).gate, (user, ok) -> client.get()
                            .uri("/login?ok=" + ok)
                            .header("X-User", user)
                            .exchange()
                            .returnResult(String.class)
                            .getStatus()
                            .value());
                });
    }
}
