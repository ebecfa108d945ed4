package io.github.ratelimit.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.ConcurrencyLimited;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.aop.RateLimitArgumentResolversAutoConfiguration;
import io.github.ratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.fixtures.SharedRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.greenbytes.http.sfv.ListElement;
import org.greenbytes.http.sfv.Parser;
import org.greenbytes.http.sfv.StringItem;
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
 * The HTTP answer of a concurrency refusal through the auto-configuration: 429 with the concurrent-requests quota unit,
 * the slot back when the call ends, and the meters. The store's own promises (exactness under 64 threads on two
 * instances, slots of a dead instance, renewal) are {@code RedisConcurrencyLimiterTest} in {@code ratelimit-redis}.
 */
class ConcurrencyLimitTests {

    @RestController
    static class Slow {
        static final CountDownLatch inside = new CountDownLatch(1);
        static final CountDownLatch leave = new CountDownLatch(1);

        @GetMapping("/slow")
        @ConcurrencyLimited(max = 1, key = "'everyone'", name = "slow")
        String slow() throws InterruptedException {
            inside.countDown();
            leave.await(10, TimeUnit.SECONDS);
            return "done";
        }
    }

    @Test
    void aRefusedCallIs429WithTheConcurrentRequestsQuotaUnit() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        WebMvcAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitWebAutoConfiguration.class,
                        RateLimitArgumentResolversAutoConfiguration.class,
                        RateLimitMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.url=" + SharedRedis.get().url(),
                        "ratelimit.redis.require-at-startup=true",
                        "ratelimit.redis.connect-timeout=20s", // the first connection on a busy machine
                        "ratelimit.key-prefix=conc-http-" + UUID.randomUUID() + ":")
                .withBean(Slow.class)
                .withBean(SimpleMeterRegistry.class)
                .run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
                    ExecutorService first = Executors.newSingleThreadExecutor();
                    Future<MockHttpServletResponse> running =
                            first.submit(() -> mvc.perform(MockMvcRequestBuilders.get("/slow"))
                                    .andReturn()
                                    .getResponse());
                    assertThat(Slow.inside.await(10, TimeUnit.SECONDS)).isTrue();
                    MockHttpServletResponse refused = mvc.perform(MockMvcRequestBuilders.get("/slow"))
                            .andReturn()
                            .getResponse();
                    Slow.leave.countDown();
                    assertThat(running.get(10, TimeUnit.SECONDS).getStatus()).isEqualTo(200);
                    first.shutdown();

                    assertThat(refused.getStatus()).isEqualTo(429);
                    assertThat(refused.getHeader("Retry-After")).isEqualTo("1");
                    List<ListElement<?>> policy = Parser.parseList(refused.getHeader("RateLimit-Policy"))
                            .get();
                    StringItem item = (StringItem) policy.get(0);
                    assertThat(item.get()).isEqualTo("slow");
                    assertThat(item.getParams().get("q").get()).isEqualTo(1L);
                    assertThat(item.getParams().get("qu").get()).isEqualTo("concurrent-requests");
                    assertThat(refused.getContentAsString()).contains("quota-exceeded");
                    // the slot came back when the first call ended
                    assertThat(mvc.perform(MockMvcRequestBuilders.get("/slow").param("x", "1"))
                                    .andReturn()
                                    .getResponse()
                                    .getStatus())
                            .isEqualTo(200);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get("ratelimit.concurrency")
                                    .tag("limit", "slow")
                                    .tag("outcome", "acquired")
                                    .counter()
                                    .count())
                            .isEqualTo(2);
                    assertThat(meters.get("ratelimit.concurrency")
                                    .tag("outcome", "refused")
                                    .counter()
                                    .count())
                            .isEqualTo(1);
                });
    }
}
