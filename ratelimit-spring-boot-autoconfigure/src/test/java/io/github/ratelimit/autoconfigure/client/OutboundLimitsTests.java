package io.github.ratelimit.autoconfigure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.spring.client.OutboundLimits;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
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
        assertInvalid("ratelimit.client.rules[0].limits[0].limit=0", "ratelimit.client.rules[0].limits[0].limit");
        assertInvalid("ratelimit.client.rules[0].hosts=exa mple.com", "ratelimit.client.rules[0].hosts[0]");
        assertInvalid("ratelimit.client.rules[0].paths=api/**", "ratelimit.client.rules[0].paths[0]");
        assertInvalid("ratelimit.client.rules[0].wait=-1s", "ratelimit.client.rules[0].wait");
        assertInvalid("ratelimit.client.rules[0].name=a b", "ratelimit.client.rules[0].name");
    }

    private void assertInvalid(String property, String named) {
        runner(2).withPropertyValues(property).run(context -> {
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
}
