package io.github.ratelimit.autoconfigure.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.ConcurrencyLimited;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration;
import io.github.ratelimit.autoconfigure.memory.RateLimitMemoryAutoConfiguration;
import io.github.ratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.kit.Poll;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An adaptive limit through the operator endpoint and the meters, on Redis and in memory: listed with its settings,
 * read with its last windows, pinned and bounded for every instance and cleared again, every bad request answered
 * with what is wrong; its gauges show the limit of the moment.
 */
class AdaptiveLimitEndpointTests {

    static class Orders {
        @ConcurrencyLimited(max = 50, adaptive = true, initial = 4, windowMs = 20, key = "'orders-db'", name = "orders")
        public String call() {
            return "ok";
        }

        @ConcurrencyLimited(max = 50, adaptive = true, key = "#tenant", name = "tenants")
        public String byTenant(String tenant) {
            return "ok";
        }

        // static: the bean is a proxy, and the test reaches the latches of the run under way
        static volatile CountDownLatch inside;
        static volatile CountDownLatch leave;

        @ConcurrencyLimited(max = 1, adaptive = true, key = "'held'", name = "held")
        public String held() throws InterruptedException {
            inside.countDown();
            leave.await(10, TimeUnit.SECONDS);
            return "ok";
        }
    }

    private static final Principal ALICE = () -> "alice";

    private ApplicationContextRunner runner(String... properties) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitMemoryAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        RateLimitAopAutoConfiguration.class,
                        RateLimitMetricsAutoConfiguration.class,
                        RateLimitEndpointAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.url=" + SharedRedis.get().url(),
                        "ratelimit.redis.require-at-startup=true",
                        "ratelimit.redis.connect-timeout=20s",
                        "ratelimit.key-prefix=adaptive-ops-"
                                + UUID.randomUUID().toString().substring(0, 8) + ":",
                        "ratelimit.actuator.write-enabled=true",
                        "management.endpoints.web.exposure.include=*",
                        "management.endpoints.access.default=UNRESTRICTED")
                .withPropertyValues(properties)
                .withBean(SimpleMeterRegistry.class)
                .withBean(Orders.class);
    }

    @Test
    void anOperatorReadsPinsAndClearsAnAdaptiveLimitOnRedis() {
        readPinClear(runner());
    }

    @Test
    void anOperatorReadsPinsAndClearsAnAdaptiveLimitInMemory() {
        readPinClear(runner("ratelimit.store=memory"));
    }

    @SuppressWarnings("unchecked")
    private static void readPinClear(ApplicationContextRunner runner) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            Orders orders = context.getBean(Orders.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);

            List<Map<String, Object>> listed = (List<Map<String, Object>>)
                    ok(endpoint.state("adaptive", null, null, null)).get("adaptive");
            assertThat(listed).extracting(limit -> limit.get("name")).containsExactly("held", "orders", "tenants");
            assertThat(listed.get(1))
                    .containsEntry("key", "'orders-db'")
                    .containsEntry("min", 1)
                    .containsEntry("max", 50)
                    .containsEntry("initial", 4)
                    .containsEntry("windowMs", 20L);
            assertThat(ok(endpoint.entry("adaptive", "orders", null, null)))
                    .as("no slot taken yet")
                    .containsEntry("started", false)
                    .containsEntry("limit", 4);

            Poll.until("windows of the orders limit", Duration.ofSeconds(20), () -> {
                orders.call();
                return !((List<?>) ok(endpoint.entry("adaptive", "orders", null, null))
                                .get("windows"))
                        .isEmpty();
            });
            Map<String, Object> started = ok(endpoint.entry("adaptive", "orders", null, null));
            assertThat(started).containsEntry("started", true).containsEntry("value", "orders-db");
            Map<String, Object> window = ((List<Map<String, Object>>) started.get("windows")).get(0);
            assertThat(window).containsKeys("window", "limit", "completed", "dropped", "refused", "peakInFlight");
            assertThat(meters.get("ratelimit.concurrency.adaptive.limit")
                            .tag("limit", "orders")
                            .gauge()
                            .value())
                    .isGreaterThanOrEqualTo(1.0);
            assertThat(meters.get("ratelimit.concurrency.adaptive.in.flight")
                            .tag("limit", "orders")
                            .gauge()
                            .value())
                    .as("this call alone, at the last slot taken")
                    .isEqualTo(1.0);

            // pinned at 1 on every instance: from the next window, a second call at once is refused
            assertThat(endpoint.override("adaptive", "orders", 1L, null, null, null, null, null, ALICE)
                            .getStatus())
                    .isEqualTo(204);
            Poll.until("the pin to hold", Duration.ofSeconds(20), () -> {
                orders.call();
                return meters.get("ratelimit.concurrency.adaptive.limit")
                                .tag("limit", "orders")
                                .gauge()
                                .value()
                        == 1.0;
            });
            Map<String, Object> pinned = ok(endpoint.entry("adaptive", "orders", null, null));
            assertThat(pinned).containsEntry("limit", 1).containsEntry("steering", Map.of("limit", 1));
            assertThat(meters.get("ratelimit.operator.changes")
                            .tag("action", "adaptive_steered")
                            .counter()
                            .count())
                    .isEqualTo(1.0);

            // bounds instead of the pin
            assertThat(endpoint.override("adaptive", "orders", null, null, null, 3, 3, null, ALICE)
                            .getStatus())
                    .isEqualTo(204);
            Poll.until("the bounds to hold", Duration.ofSeconds(20), () -> {
                orders.call();
                return ok(endpoint.entry("adaptive", "orders", null, null))
                        .get("limit")
                        .equals(3);
            });

            assertThat(endpoint.removeOverride("adaptive", "orders", null, null, null, ALICE)
                            .getStatus())
                    .isEqualTo(204);
            assertThat(ok(endpoint.entry("adaptive", "orders", null, null))).doesNotContainKey("steering");

            // a limit keyed by an expression is named by its value
            orders.byTenant("t-7");
            assertThat(error(endpoint.entry("adaptive", "tenants", null, null), 400))
                    .isEqualTo("adaptive limit 'tenants' is keyed by '#tenant': name the key's value (value=...)");
            assertThat(ok(endpoint.entry("adaptive", "tenants", null, "t-7"))).containsEntry("value", "t-7");
            assertThat(error(endpoint.entry("adaptive", "nope", null, null), 404))
                    .isEqualTo(
                            "no adaptive concurrency limit named 'nope'; the declared ones are [held, orders, tenants]");
            assertThat(error(endpoint.override("adaptive", "orders", 0L, null, null, null, null, null, ALICE), 400))
                    .isEqualTo("pin must be at least 1, but was 0 (steer with {\"limit\": n} to pin it, or {\"min\":"
                            + " n, \"max\": n})");
            assertThat(error(endpoint.override("adaptive", "orders", null, null, null, 9, 3, null, ALICE), 400))
                    .startsWith("max must be at least min 9, but was 3");
            assertThat(error(endpoint.override("adaptive", "orders", 5L, "1s", null, null, null, null, ALICE), 400))
                    .contains("not window or shadow");
        });
    }

    @Test
    void steeringIsAWrite() {
        runner("ratelimit.actuator.write-enabled=false").run(context -> {
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            assertThat(error(endpoint.override("adaptive", "orders", 2L, null, null, null, null, null, ALICE), 403))
                    .isEqualTo("writing is disabled; set ratelimit.actuator.write-enabled=true");
            assertThat(error(endpoint.removeOverride("adaptive", "orders", null, null, null, ALICE), 403))
                    .isEqualTo("writing is disabled; set ratelimit.actuator.write-enabled=true");
        });
    }

    /** A refusal is counted as shed, and the gauges show the limit of that moment, all of it in flight. */
    @Test
    void aRefusalIsShedAtTheLimitOfTheMoment() {
        runner("ratelimit.store=memory").run(context -> {
            Orders orders = context.getBean(Orders.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Orders.inside = new CountDownLatch(1);
            Orders.leave = new CountDownLatch(1);
            ExecutorService holder = Executors.newSingleThreadExecutor();
            try {
                Future<String> held = holder.submit(orders::held);
                assertThat(Orders.inside.await(10, TimeUnit.SECONDS)).isTrue();
                assertThatThrownBy(orders::held)
                        .isInstanceOfSatisfying(ConcurrencyLimitExceededException.class, e -> assertThat(e.max())
                                .isEqualTo(1));
                Orders.leave.countDown();
                assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo("ok");
            } finally {
                holder.shutdownNow();
            }
            assertThat(meters.get("ratelimit.concurrency")
                            .tags("limit", "held", "outcome", "refused")
                            .counter()
                            .count())
                    .isEqualTo(1.0);
            assertThat(meters.get("ratelimit.concurrency.adaptive.in.flight")
                            .tag("limit", "held")
                            .gauge()
                            .value())
                    .isEqualTo(1.0);
            assertThat(meters.get("ratelimit.concurrency.adaptive.limit")
                            .tag("limit", "held")
                            .gauge()
                            .value())
                    .isEqualTo(1.0);
        });
    }

    private static Map<String, Object> ok(WebEndpointResponse<Map<String, Object>> response) {
        assertThat(response.getStatus()).as("%s", response.getBody()).isEqualTo(200);
        return response.getBody();
    }

    private static String error(WebEndpointResponse<Map<String, Object>> response, int status) {
        assertThat(response.getStatus()).as("%s", response.getBody()).isEqualTo(status);
        return String.valueOf(response.getBody().get("error"));
    }
}
