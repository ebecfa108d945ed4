package io.github.ratelimit.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.fixtures.SharedRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;

/**
 * The engine wired by an application on plain Spring, without Spring Boot (which is not on this module's test class
 * path): {@link RateLimitsOnPlainSpring}, the configuration docs/reference.md prints, and a bean of its own. Two such
 * applications on one Redis, called from many threads at once, admit exactly the limit between them.
 */
class PlainSpringApplicationTest {

    static final int LIMIT = 5;

    /** An application's bean, limited per customer. */
    static class Reports {

        @RateLimited(name = "reports", limit = LIMIT, windowMs = 60_000, key = "#customer")
        String report(String customer) {
            return "report for " + customer;
        }
    }

    @Test
    void springBootIsNotOnTheClassPath() {
        assertThatThrownBy(() -> Class.forName("org.springframework.boot.SpringApplication"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void twoApplicationsOnOneRedisAdmitExactlyTheLimitBetweenThemUnderConcurrentCalls() throws Exception {
        String keyPrefix = "plain-spring-" + UUID.randomUUID() + ":"; // the fleet's, shared by both applications
        try (AnnotationConfigApplicationContext one = application(keyPrefix);
                AnnotationConfigApplicationContext two = application(keyPrefix)) {
            List<Reports> instances = List.of(one.getBean(Reports.class), two.getBean(Reports.class));
            int calls = 40;
            ExecutorService threads = Executors.newFixedThreadPool(8);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Boolean>> admitted = new ArrayList<>();
            try {
                for (int i = 0; i < calls; i++) {
                    Reports reports = instances.get(i % 2);
                    Callable<Boolean> call = () -> {
                        start.await();
                        try {
                            reports.report("acme");
                            return true;
                        } catch (RateLimitExceededException refused) {
                            return false;
                        }
                    };
                    admitted.add(threads.submit(call));
                }
                start.countDown();
                int allowed = 0;
                for (Future<Boolean> result : admitted) {
                    allowed += result.get() ? 1 : 0;
                }
                assertThat(allowed).isEqualTo(LIMIT);
            } finally {
                threads.shutdownNow();
            }
            assertThat(instances.get(0).report("globex"))
                    .as("another customer has a budget of its own")
                    .isEqualTo("report for globex");
        }
    }

    /** One application: the configuration of docs/reference.md and a bean of its own. */
    private static AnnotationConfigApplicationContext application(String keyPrefix) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment()
                .getPropertySources()
                .addFirst(new MapPropertySource(
                        "test", Map.of("redis.url", SharedRedis.get().url(), "ratelimit.key-prefix", keyPrefix)));
        context.register(RateLimitsOnPlainSpring.class, Reports.class);
        context.refresh();
        return context;
    }
}
