package io.github.ratelimit.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.ConcurrencyLimited;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration;
import io.github.ratelimit.autoconfigure.aop.RateLimitArgumentResolversAutoConfiguration;
import io.github.ratelimit.autoconfigure.memory.RateLimitMemoryAutoConfiguration;
import io.github.ratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.fixtures.Causes;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.support.RawRedis;
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
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * {@code @ConcurrencyLimited(adaptive = true)} through the auto-configuration, on Redis and in memory: a refusal is 429
 * with the limit of the moment as its quota; a method that throws, or a publisher that fails, gives its slot back as a
 * drop, never as a fast sample; bad settings fail the start, named. How the limit learns is the kit's
 * {@code AdaptiveConcurrencyLimiterContract}.
 */
class AdaptiveConcurrencyLimitTests {

    @RestController
    static class Dependency {
        // static: the bean is a proxy, and the test reaches the latches of the run under way
        static volatile CountDownLatch inside;
        static volatile CountDownLatch leave;

        @GetMapping("/dependency")
        @ConcurrencyLimited(max = 50, adaptive = true, initial = 1, key = "'all'", name = "dependency")
        String call() throws InterruptedException {
            inside.countDown();
            leave.await(10, TimeUnit.SECONDS);
            return "done";
        }
    }

    static class Failing {
        @ConcurrencyLimited(max = 50, adaptive = true, initial = 5, key = "'all'", name = "failing")
        String call() {
            throw new IllegalStateException("the dependency is down");
        }

        @ConcurrencyLimited(max = 50, adaptive = true, initial = 5, key = "'all'", name = "failing-mono")
        Mono<String> reactive() {
            return Mono.error(new IllegalStateException("the dependency is down"));
        }
    }

    static class MinWithoutAdaptive {
        @ConcurrencyLimited(max = 10, min = 2)
        String call() {
            return "ok";
        }
    }

    static class ToleranceTooLow {
        @ConcurrencyLimited(max = 10, adaptive = true, tolerance = 1.0)
        String call() {
            return "ok";
        }
    }

    private WebApplicationContextRunner web(String... properties) {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        WebMvcAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitMemoryAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        RateLimitAopAutoConfiguration.class,
                        RateLimitWebAutoConfiguration.class,
                        RateLimitArgumentResolversAutoConfiguration.class,
                        RateLimitMetricsAutoConfiguration.class))
                .withPropertyValues(redis())
                .withPropertyValues(properties);
    }

    private ApplicationContextRunner plain(String... properties) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitMemoryAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        RateLimitAopAutoConfiguration.class,
                        RateLimitMetricsAutoConfiguration.class))
                .withPropertyValues(redis())
                .withPropertyValues(properties);
    }

    private static String[] redis() {
        return new String[] {
            "spring.data.redis.url=" + SharedRedis.get().url(),
            "ratelimit.redis.require-at-startup=true",
            "ratelimit.redis.connect-timeout=20s", // the first connection on a busy machine
            "ratelimit.key-prefix=adaptive-http-" + UUID.randomUUID().toString().substring(0, 8) + ":"
        };
    }

    @Test
    void aRefusedCallIs429WithTheLimitOfTheMomentOnRedis() {
        refusedWith429(web());
    }

    @Test
    void aRefusedCallIs429WithTheLimitOfTheMomentInMemory() {
        refusedWith429(web("ratelimit.store=memory"));
    }

    private static void refusedWith429(WebApplicationContextRunner runner) {
        Dependency.inside = new CountDownLatch(1);
        Dependency.leave = new CountDownLatch(1);
        runner.withBean(Dependency.class).run(context -> {
            assertThat(context).hasNotFailed();
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            ExecutorService first = Executors.newSingleThreadExecutor();
            try {
                Future<MockHttpServletResponse> running =
                        first.submit(() -> mvc.perform(MockMvcRequestBuilders.get("/dependency"))
                                .andReturn()
                                .getResponse());
                assertThat(Dependency.inside.await(10, TimeUnit.SECONDS)).isTrue();
                MockHttpServletResponse refused = mvc.perform(MockMvcRequestBuilders.get("/dependency"))
                        .andReturn()
                        .getResponse();
                Dependency.leave.countDown();
                assertThat(running.get(10, TimeUnit.SECONDS).getStatus()).isEqualTo(200);

                assertThat(refused.getStatus()).isEqualTo(429);
                assertThat(refused.getHeader("Retry-After")).isEqualTo("1");
                List<ListElement<?>> policy =
                        Parser.parseList(refused.getHeader("RateLimit-Policy")).get();
                StringItem item = (StringItem) policy.get(0);
                assertThat(item.get()).isEqualTo("dependency");
                assertThat(item.getParams().get("q").get())
                        .as("the limit of the moment")
                        .isEqualTo(1L);
                assertThat(item.getParams().get("qu").get()).isEqualTo("concurrent-requests");
                assertThat(mvc.perform(MockMvcRequestBuilders.get("/dependency"))
                                .andReturn()
                                .getResponse()
                                .getStatus())
                        .as("the slot came back when the first call ended")
                        .isEqualTo(200);
            } finally {
                first.shutdown();
            }
        });
    }

    /** A method that throws and a publisher that fails are drops in the fleet's window, not completed samples. */
    @Test
    void aFailedCallIsADropOnRedis() {
        String prefix = "adaptive-drop-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        plain("ratelimit.key-prefix=" + prefix).withBean(Failing.class).run(context -> {
            assertThat(context).hasNotFailed();
            Failing failing = context.getBean(Failing.class);
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(failing::call).isInstanceOf(IllegalStateException.class);
                assertThatThrownBy(() -> failing.reactive().block()).isInstanceOf(IllegalStateException.class);
            }
            int port = SharedRedis.get().port();
            for (String name : List.of("failing", "failing-mono")) {
                String windows = windowsKey(port, prefix, name);
                assertThat(sum(port, windows, ":d")).as("drops of %s", name).isEqualTo(3);
                assertThat(sum(port, windows, ":c"))
                        .as("completed calls of %s", name)
                        .isZero();
                assertThat(RawRedis.command(port, "ZCARD", windows.replace(":windows", "")))
                        .as("slots held after the calls")
                        .isEqualTo(":0\r\n");
            }
        });
    }

    @Test
    void aFailedCallGivesItsSlotBackInMemory() {
        plain("ratelimit.store=memory").withBean(Failing.class).run(context -> {
            Failing failing = context.getBean(Failing.class);
            for (int i = 0; i < 20; i++) { // more than the initial limit of 5: every slot came back
                assertThatThrownBy(failing::call)
                        .isInstanceOf(IllegalStateException.class)
                        .isNotInstanceOf(ConcurrencyLimitExceededException.class);
            }
        });
    }

    @Test
    void settingsOfAnAdaptiveLimitWithoutAdaptiveFailTheStartNamed() {
        plain().withBean(MinWithoutAdaptive.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(Causes.messages(context.getStartupFailure()))
                    .contains("MinWithoutAdaptive.call")
                    .contains("min, initial, tolerance and windowMs apply to an adaptive limit only; set adaptive ="
                            + " true, or remove them for a fixed limit of max 10");
        });
    }

    @Test
    void aToleranceOfOneFailsTheStartNamed() {
        plain().withBean(ToleranceTooLow.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(Causes.messages(context.getStartupFailure()))
                    .contains("ToleranceTooLow.call")
                    .contains("adaptive limit: tolerance must be more than 1 and at most 10 (times the no-load"
                            + " latency), but was 1.0");
        });
    }

    /** The key of a limit's windows, found by its name under the prefix. */
    private static String windowsKey(int port, String prefix, String name) {
        String reply = RawRedis.command(port, "KEYS", prefix + "*:adapt:" + name + ":windows");
        String[] lines = reply.split("\r\n");
        assertThat(lines).as("the windows of %s: %s", name, reply).hasSize(3);
        return lines[2];
    }

    /** The sum of a hash's fields whose name ends with {@code suffix}. */
    private static long sum(int port, String hash, String suffix) {
        String[] lines = RawRedis.command(port, "HGETALL", hash).split("\r\n");
        long sum = 0;
        for (int i = 2; i + 2 < lines.length; i += 4) {
            if (lines[i].endsWith(suffix)) {
                sum += Long.parseLong(lines[i + 2]);
            }
        }
        return sum;
    }
}
