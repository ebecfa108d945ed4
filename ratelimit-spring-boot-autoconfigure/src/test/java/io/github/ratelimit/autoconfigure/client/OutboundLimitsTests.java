package io.github.ratelimit.autoconfigure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.spring.client.OutboundLimits;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import io.github.ratelimit.test.kit.Poll;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * Outbound limits ({@code ratelimit.client.rules}) on clients built from Boot's builders, against a real Redis and a
 * real upstream (the JDK's HTTP server): two application contexts sharing one Redis are two instances with one budget,
 * and an upstream's 429 with {@code Retry-After} pauses the rule on both, so the pause's calls never reach it.
 */
class OutboundLimitsTests {

    private HttpServer upstream;
    private final AtomicInteger calls = new AtomicInteger();
    private volatile int status = 200;
    private volatile String retryAfter;

    private final String prefix = "outbound-" + UUID.randomUUID() + ":";

    @BeforeEach
    void startUpstream() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.createContext("/", exchange -> {
            calls.incrementAndGet();
            byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            if (retryAfter != null) {
                exchange.getResponseHeaders().add("Retry-After", retryAfter);
            }
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        upstream.start();
    }

    @AfterEach
    void stopUpstream() {
        upstream.stop(0);
    }

    private ApplicationContextRunner runner(int limit) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitClientAutoConfiguration.class,
                        RestClientAutoConfiguration.class,
                        org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration.class,
                        WebClientAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.url=" + SharedRedis.get().url(),
                        // each instance connected before it calls: a call made while it still connects in the
                        // background is decided in memory, and two instances' memories do not share one budget
                        "ratelimit.redis.require-at-startup=true",
                        "ratelimit.redis.connect-timeout=20s", // the first connection on a busy machine
                        "ratelimit.key-prefix=" + prefix,
                        "ratelimit.client.rules[0].name=upstream",
                        "ratelimit.client.rules[0].hosts=127.0.0.1",
                        "ratelimit.client.rules[0].paths=/api/**",
                        "ratelimit.client.rules[0].limits[0].limit=" + limit,
                        "ratelimit.client.rules[0].limits[0].window=1m");
    }

    private String url() {
        return "http://127.0.0.1:" + upstream.getAddress().getPort() + "/api/data";
    }

    private static String restCall(ApplicationContext context, String url) {
        return context.getBean(RestClient.Builder.class)
                .build()
                .get()
                .uri(url)
                .retrieve()
                .body(String.class);
    }

    private static String webCall(ApplicationContext context, String url) {
        return context.getBean(WebClient.Builder.class)
                .build()
                .get()
                .uri(url)
                .retrieve()
                .bodyToMono(String.class)
                .block(Duration.ofSeconds(10));
    }

    /** A limit of 2 per minute for both instances: the third call is refused before it is sent. */
    @Test
    void twoInstancesShareOneBudgetAndARefusedCallIsNeverSent() {
        runner(2).run(one -> runner(2).run(two -> {
            assertThat(restCall(one, url())).contains("ok");
            assertThat(webCall(two, url())).contains("ok");
            assertThatThrownBy(() -> restCall(one, url())).isInstanceOf(RateLimitExceededException.class);
            assertThatThrownBy(() -> webCall(two, url())).isInstanceOf(RateLimitExceededException.class);
            assertThat(calls).hasValue(2);
            // a path no rule matches is not limited
            assertThat(restCall(one, url().replace("/api/data", "/other/data"))).contains("ok");
        }));
    }

    /**
     * The upstream answers 429 with Retry-After: 2 to one instance's RestClient: the other instance's WebClient is
     * refused at once with about the time left, without a call reaching the upstream; the pause is counted once.
     */
    @Test
    void anUpstreamsRetryAfterPausesTheRuleOnEveryInstance() {
        runner(100).run(one -> runner(100).run(two -> {
            status = 429;
            retryAfter = "2";
            long paused = System.nanoTime();
            assertThatThrownBy(() -> restCall(one, url())).isInstanceOf(HttpClientErrorException.TooManyRequests.class);
            status = 200;
            retryAfter = null;

            assertThatThrownBy(() -> webCall(two, url()))
                    .isInstanceOfSatisfying(RateLimitExceededException.class, refused -> assertThat(
                                    refused.decision().retryAfter())
                            // the 2 s less what has passed since the upstream was asked (a slow machine's part too)
                            .isBetween(
                                    Duration.ofMillis(1_900).minusNanos(System.nanoTime() - paused),
                                    Duration.ofMillis(2_100)));
            assertThatThrownBy(() -> restCall(one, url())).isInstanceOf(RateLimitExceededException.class);
            assertThatThrownBy(() -> one.getBean(org.springframework.boot.restclient.RestTemplateBuilder.class)
                            .build()
                            .getForObject(url(), String.class))
                    .isInstanceOf(RateLimitExceededException.class);
            assertThat(calls).hasValue(1);
            assertThat(one.getBean(OutboundLimits.class).pauses()).isEqualTo(1);
            assertThat(two.getBean(OutboundLimits.class).pauses()).isZero();
        }));
    }

    /** The WebClient side of the same: its 429 pauses the RestClient of the other instance. */
    @Test
    void aWebClientsRetryAfterPausesTheRestClientsToo() {
        runner(100).run(one -> runner(100).run(two -> {
            status = 503;
            retryAfter = "3";
            assertThatThrownBy(() -> webCall(one, url()))
                    .isInstanceOf(WebClientResponseException.ServiceUnavailable.class);
            status = 200;
            retryAfter = null;
            assertThatThrownBy(() -> restCall(two, url())).isInstanceOf(RateLimitExceededException.class);
            assertThat(calls).hasValue(1);
        }));
    }

    @Test
    void anInvalidRuleFailsTheStartNamingTheProperty() {
        assertInvalid("ratelimit.client.rules[0].concurrency.max=0", "ratelimit.client.rules[0].concurrency.max");
        assertInvalid(
                "ratelimit.client.rules[0].concurrency.max=5,ratelimit.client.rules[0].concurrency.lease=50ms"
                        .split(","),
                "ratelimit.client.rules[0].concurrency.lease");
        assertInvalid(
                "ratelimit.client.rules[0].concurrency.max=5,ratelimit.client.rules[0].concurrency.min=2".split(","),
                "ratelimit.client.rules[0].concurrency");
        assertInvalid(
                ("ratelimit.client.rules[0].concurrency.max=5,ratelimit.client.rules[0].concurrency.adaptive=true,"
                                + "ratelimit.client.rules[0].concurrency.tolerance=1.0")
                        .split(","),
                "ratelimit.client.rules[0].concurrency");
        assertInvalid("ratelimit.client.rules[0].limits[0].limit=0", "ratelimit.client.rules[0].limits[0].limit");
        assertInvalid("ratelimit.client.rules[0].hosts=exa mple.com", "ratelimit.client.rules[0].hosts[0]");
        assertInvalid("ratelimit.client.rules[0].paths=api/**", "ratelimit.client.rules[0].paths[0]");
        assertInvalid("ratelimit.client.rules[0].wait=-1s", "ratelimit.client.rules[0].wait");
        assertInvalid("ratelimit.client.rules[0].name=a b", "ratelimit.client.rules[0].name");
    }

    private void assertInvalid(String property, String named) {
        assertInvalid(new String[] {property}, named);
    }

    private void assertInvalid(String[] properties, String named) {
        String property = String.join(", ", properties);
        runner(2).withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            InvalidFilterRuleException cause = null;
            for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                if (t instanceof InvalidFilterRuleException rule) {
                    cause = rule;
                }
            }
            assertThat(cause)
                    .as("an InvalidFilterRuleException for %s", property)
                    .isNotNull();
            assertThat(cause.property()).isEqualTo(named);
        });
    }

    // ---- concurrency limits of outbound rules ----

    /** An upstream whose {@code /slow} calls wait for the test, on threads of their own; {@code /fail} answers 503. */
    private HttpServer slowUpstream(CountDownLatch inside, CountDownLatch leave, AtomicInteger served)
            throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", exchange -> {
            served.incrementAndGet();
            int answer = 200;
            if (exchange.getRequestURI().getPath().startsWith("/slow")) {
                inside.countDown();
                try {
                    leave.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            } else if (exchange.getRequestURI().getPath().startsWith("/fail")) {
                answer = 503;
            }
            byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(answer, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return server;
    }

    private ApplicationContextRunner partner(String... concurrency) {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.memory.RateLimitMemoryAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitClientAutoConfiguration.class,
                        RestClientAutoConfiguration.class,
                        WebClientAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.url=" + SharedRedis.get().url(),
                        "ratelimit.redis.require-at-startup=true",
                        "ratelimit.redis.connect-timeout=20s",
                        "ratelimit.key-prefix=" + prefix,
                        "ratelimit.client.rules[0].name=partner",
                        "ratelimit.client.rules[0].hosts=127.0.0.1");
        for (String setting : concurrency) {
            runner = runner.withPropertyValues("ratelimit.client.rules[0].concurrency." + setting);
        }
        return runner;
    }

    /**
     * A rule with an adaptive concurrency limit and no rate limit, on two instances: while one instance's call is in
     * flight at the limit of 1, the other's is refused and never sent; once it answered, calls pass again; a 503 is a
     * drop in the fleet's window, not a fast sample.
     */
    @Test
    void anAdaptiveConcurrencyLimitOfARuleHoldsForTheFleet() throws Exception {
        outboundSlots(
                partner("max=50", "adaptive=true", "window=1h").withPropertyValues("ratelimit.store=redis"),
                partner("max=50", "adaptive=true", "window=1h").withPropertyValues("ratelimit.store=redis"));
        int port = SharedRedis.get().port();
        String reply =
                io.github.ratelimit.test.support.RawRedis.command(port, "KEYS", prefix + "*:adapt:partner:windows");
        String windows = reply.split("\r\n")[2];
        String fields = io.github.ratelimit.test.support.RawRedis.command(port, "HGETALL", windows);
        assertThat(fields).as("the 503 counted as a drop: %s", fields).contains(":d\r\n");
    }

    /** A fixed concurrency limit of 1 in memory: the second call at once is refused and never sent. */
    @Test
    void aFixedConcurrencyLimitOfARuleInMemory() throws Exception {
        ApplicationContextRunner memory = partner("max=1").withPropertyValues("ratelimit.store=memory");
        outboundSlots(memory, null);
    }

    /** One call held in flight through {@code first}'s RestClient; {@code second} (or {@code first}) is refused. */
    private void outboundSlots(ApplicationContextRunner first, ApplicationContextRunner second) throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        AtomicInteger served = new AtomicInteger();
        HttpServer slow = slowUpstream(inside, leave, served);
        String base = "http://127.0.0.1:" + slow.getAddress().getPort();
        java.util.concurrent.ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            first.run(one -> (second == null ? first : second).run(other -> {
                ApplicationContext two = second == null ? one : other;
                java.util.concurrent.Future<String> held = caller.submit(() -> restCall(one, base + "/slow"));
                assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
                assertThatThrownBy(() -> webCall(two, base + "/other"))
                        .isInstanceOf(ConcurrencyLimitExceededException.class);
                assertThatThrownBy(() -> restCall(two, base + "/other"))
                        .isInstanceOf(ConcurrencyLimitExceededException.class);
                assertThat(served).as("the refused calls were never sent").hasValue(1);
                leave.countDown();
                assertThat(held.get(10, TimeUnit.SECONDS)).contains("ok");
                Poll.until("the slot back", Duration.ofSeconds(10), () -> {
                    try {
                        return webCall(two, base + "/other").contains("ok");
                    } catch (ConcurrencyLimitExceededException e) {
                        return false;
                    }
                });
                assertThatThrownBy(() -> restCall(two, base + "/fail"))
                        .isInstanceOf(org.springframework.web.client.HttpServerErrorException.class);
                Poll.until("the slot back after the 503", Duration.ofSeconds(10), () -> {
                    try {
                        return restCall(one, base + "/other").contains("ok");
                    } catch (ConcurrencyLimitExceededException e) {
                        return false;
                    }
                });
            }));
        } finally {
            leave.countDown();
            caller.shutdownNow();
            slow.stop(0);
        }
    }
}
