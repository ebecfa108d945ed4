package io.github.ratelimit.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.memory.RateLimitMemoryAutoConfiguration;
import io.github.ratelimit.autoconfigure.reactive.RateLimitReactiveWebAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.fixtures.Causes;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.kit.Poll;
import jakarta.servlet.Filter;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * A path rule's concurrency limit ({@code ratelimit.filter.rules[i].concurrency}) on both web stacks, adaptive on
 * Redis and fixed in memory: while one request is in flight at the limit of 1, the next is answered 429 with the
 * limit of the moment as its quota and never reaches the handler; once the first answered, its slot is back. A rule of
 * the protocols' rules that sets one fails the start, named.
 */
class PathRuleConcurrencyTests {

    /** Held requests wait here; every request that reached a handler is counted. */
    static final class Gate {
        final CountDownLatch inside = new CountDownLatch(1);
        final CompletableFuture<Void> leave = new CompletableFuture<>();
        final AtomicInteger reached = new AtomicInteger();
    }

    @RestController
    static class ServletInventory {
        final Gate gate = new Gate();

        @GetMapping("/inventory/held")
        String held() {
            gate.reached.incrementAndGet();
            gate.inside.countDown();
            gate.leave.join();
            return "held";
        }

        @GetMapping("/inventory/now")
        String now() {
            gate.reached.incrementAndGet();
            return "now";
        }
    }

    @RestController
    static class ReactiveInventory {
        final Gate gate = new Gate();

        @GetMapping("/inventory/held")
        Mono<String> held() {
            return Mono.fromRunnable(() -> {
                        gate.reached.incrementAndGet();
                        gate.inside.countDown();
                    })
                    .then(Mono.fromFuture(gate.leave))
                    .thenReturn("held");
        }

        @GetMapping("/inventory/now")
        Mono<String> now() {
            return Mono.fromSupplier(() -> {
                gate.reached.incrementAndGet();
                return "now";
            });
        }
    }

    static final String[] ADAPTIVE = {
        "ratelimit.filter.rules[0].name=inventory",
        "ratelimit.filter.rules[0].paths=/inventory/**",
        "ratelimit.filter.rules[0].key=spel:'everyone'", // the test client has no address
        "ratelimit.filter.rules[0].limits[0].limit=1000",
        "ratelimit.filter.rules[0].limits[0].window=1s",
        "ratelimit.filter.rules[0].concurrency.max=50",
        "ratelimit.filter.rules[0].concurrency.adaptive=true",
        "ratelimit.filter.rules[0].concurrency.window=1h" // one window: the limit stays at its initial 1
    };

    static final String[] FIXED = {
        "ratelimit.filter.rules[0].name=inventory",
        "ratelimit.filter.rules[0].paths=/inventory/**",
        "ratelimit.filter.rules[0].key=spel:'everyone'", // the test client has no address
        "ratelimit.filter.rules[0].limits[0].limit=1000",
        "ratelimit.filter.rules[0].limits[0].window=1s",
        "ratelimit.filter.rules[0].concurrency.max=1",
        "ratelimit.store=memory"
    };

    private static String[] redis() {
        return new String[] {
            "spring.data.redis.url=" + SharedRedis.get().url(),
            "ratelimit.redis.require-at-startup=true",
            "ratelimit.redis.connect-timeout=20s",
            "ratelimit.key-prefix=path-slots-" + UUID.randomUUID().toString().substring(0, 8) + ":"
        };
    }

    /** A response: its status and RateLimit-Policy field. */
    record Answer(int status, String policy) {}

    interface Client {
        Answer get(String path);
    }

    /** One request held in flight; the next is refused unsent to the handler; the slot comes back. */
    static void heldAndRefused(Gate gate, Client client) throws Exception {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<Answer> held = caller.submit(() -> client.get("/inventory/held"));
            assertThat(gate.inside.await(10, TimeUnit.SECONDS))
                    .as("the first request in its handler (%s)", held.isDone() ? held.get() : "running")
                    .isTrue();
            Answer refused = client.get("/inventory/now");
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.policy()).isEqualTo("\"inventory\";q=1;qu=\"concurrent-requests\"");
            assertThat(gate.reached)
                    .as("the refused request never reached the handler")
                    .hasValue(1);
            gate.leave.complete(null);
            assertThat(held.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
            Poll.until(
                    "the slot back",
                    Duration.ofSeconds(10),
                    () -> client.get("/inventory/now").status() == 200);
        } finally {
            gate.leave.complete(null);
            caller.shutdownNow();
        }
    }

    private static WebApplicationContextRunner servlet(String... properties) {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        WebMvcAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitMemoryAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitWebAutoConfiguration.class))
                .withPropertyValues(redis())
                .withPropertyValues(properties)
                .withBean(ServletInventory.class);
    }

    private static ReactiveWebApplicationContextRunner reactive(String... properties) {
        return new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        JacksonAutoConfiguration.class,
                        CodecsAutoConfiguration.class,
                        WebFluxAutoConfiguration.class,
                        HttpHandlerAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitMemoryAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitReactiveWebAutoConfiguration.class))
                .withPropertyValues(redis())
                .withPropertyValues(properties)
                .withBean(ReactiveInventory.class);
    }

    private static void onServlets(String... properties) {
        servlet(properties).run(context -> {
            assertThat(context).hasNotFailed();
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context)
                    .addFilters(context.getBean("rateLimitFilter", Filter.class))
                    .build();
            heldAndRefused(context.getBean(ServletInventory.class).gate, path -> {
                try {
                    var response = mvc.perform(MockMvcRequestBuilders.get(path))
                            .andReturn()
                            .getResponse();
                    return new Answer(response.getStatus(), response.getHeader("RateLimit-Policy"));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        });
    }

    private static void onWebFlux(String... properties) {
        reactive(properties).run(context -> {
            assertThat(context).hasNotFailed();
            WebTestClient client = WebTestClient.bindToApplicationContext(context)
                    .configureClient()
                    .responseTimeout(Duration.ofSeconds(20))
                    .build();
            heldAndRefused(context.getBean(ReactiveInventory.class).gate, path -> {
                EntityExchangeResult<byte[]> result =
                        client.get().uri(path).exchange().expectBody().returnResult();
                return new Answer(
                        result.getStatus().value(), result.getResponseHeaders().getFirst("RateLimit-Policy"));
            });
        });
    }

    @Test
    void anAdaptiveLimitOnServletsOnRedis() {
        onServlets(ADAPTIVE);
    }

    @Test
    void aFixedLimitOnServletsInMemory() {
        onServlets(FIXED);
    }

    @Test
    void anAdaptiveLimitOnWebFluxOnRedis() {
        onWebFlux(ADAPTIVE);
    }

    @Test
    void aFixedLimitOnWebFluxInMemory() {
        onWebFlux(FIXED);
    }

    @Test
    void badSettingsFailTheStartNamed() {
        servlet(
                        "ratelimit.filter.rules[0].name=inventory",
                        "ratelimit.filter.rules[0].paths=/inventory/**",
                        "ratelimit.filter.rules[0].key=spel:'everyone'", // the test client has no address
                        "ratelimit.filter.rules[0].limits[0].limit=1000",
                        "ratelimit.filter.rules[0].limits[0].window=1s",
                        "ratelimit.filter.rules[0].concurrency.max=5",
                        "ratelimit.filter.rules[0].concurrency.min=2")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(Causes.messages(context.getStartupFailure()))
                            .contains("ratelimit.filter.rules[0].concurrency")
                            .contains("min, initial, tolerance and window apply to an adaptive limit only");
                });
    }

    /** The protocols' rules (gRPC services, GraphQL operations) take no slots yet: a concurrency limit fails, named. */
    @Test
    void theProtocolsRulesRefuseAConcurrencyLimit() {
        var spec = new io.github.ratelimit.spring.definition.FilterRuleSpec(
                "quotes",
                java.util.List.of("quotes.Quotes/*"),
                java.util.List.of(),
                java.util.List.of(new io.github.ratelimit.spring.definition.FilterRuleSpec.LimitSpec(
                        10, Duration.ofSeconds(1), io.github.ratelimit.annotation.Algorithm.FIXED_WINDOW)),
                null,
                io.github.ratelimit.spring.definition.FilterRuleSpec.MissingKey.REJECT,
                1,
                0,
                false,
                false,
                io.github.ratelimit.annotation.FailureMode.DEFAULT,
                io.github.ratelimit.annotation.RetryAdvice.DEFAULT,
                null,
                null,
                null,
                null,
                new io.github.ratelimit.spring.definition.ConcurrencySpec(
                        5, false, 1, 0, 2.0, Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofMinutes(5)));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new io.github.ratelimit.spring.definition.PathRules(
                        java.util.List.of(spec),
                        "ratelimit.grpc.rules",
                        io.github.ratelimit.spring.definition.Plans.NONE,
                        io.github.ratelimit.spring.definition.KeyResolvers.BUILT_IN))
                .isInstanceOfSatisfying(
                        io.github.ratelimit.spring.definition.InvalidFilterRuleException.class,
                        e -> assertThat(e.property()).isEqualTo("ratelimit.grpc.rules[0].concurrency"));
    }
}
