package io.github.ratelimit.autoconfigure.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.health.RateLimitHealthAutoConfiguration;
import io.github.ratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.support.RedisProcess;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Metrics, the ratelimits endpoint and the health indicator, on a real Redis. */
class OperatorViewTests {

    private ApplicationContextRunner runner(String url) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitMetricsAutoConfiguration.class,
                        RateLimitEndpointAutoConfiguration.class,
                        RateLimitHealthAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.url=" + url,
                        "management.endpoints.access.default=UNRESTRICTED",
                        "management.endpoints.web.exposure.include=*",
                        "management.endpoints.jmx.exposure.include=*",
                        "spring.jmx.enabled=true")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Reports.class);
    }

    static class Reports {
        @RateLimited(limit = 2, windowMs = 60_000, key = "#tenant", name = "reports")
        public String run(String tenant) {
            return "ok";
        }
    }

    @Test
    void decisionsTokensAndLocksAreMeteredWithBoundedTags() {
        runner(SharedRedis.get().url()).run(context -> {
            Reports reports = context.getBean(Reports.class);
            String tenant = "t-" + UUID.randomUUID();
            reports.run(tenant);
            reports.run(tenant);
            assertThatThrownBy(() -> reports.run(tenant)).isInstanceOf(RateLimitExceededException.class);
            SingleUseTokens tokens = context.getBean(SingleUseTokens.class);
            String token = tokens.issue("m", Map.of(), Duration.ofMinutes(1)).token();
            tokens.consume("m", token);
            tokens.consume("m", token);
            context.getBean(LockManager.class)
                    .tryAcquire("m-job", LockOptions.lease(Duration.ofSeconds(5)))
                    .release();

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("ratelimit.decisions")
                            .tags("limit", "reports", "outcome", "allowed")
                            .counter()
                            .count())
                    .isEqualTo(2);
            assertThat(meters.get("ratelimit.decisions")
                            .tags("limit", "reports", "outcome", "rejected")
                            .counter()
                            .count())
                    .isEqualTo(1);
            DistributionSummary advice = meters.get("ratelimit.retry.advice")
                    .tags("limit", "reports", "advice", "earliest")
                    .summary();
            assertThat(advice.count()).as("one refusal, one advice").isEqualTo(1);
            assertThat(advice.max())
                    .as("seconds until the first of the two calls leaves the minute's window")
                    .isBetween(1.0, 60.0);
            assertThat(meters.get("ratelimit.redis.duration")
                            .tag("operation", "decide")
                            .timer()
                            .count())
                    .isEqualTo(3);
            assertThat(meters.get("ratelimit.tokens")
                            .tags("operation", "consume", "outcome", "consumed")
                            .counter()
                            .count())
                    .isEqualTo(1);
            assertThat(meters.get("ratelimit.tokens")
                            .tags("operation", "consume", "outcome", "already_used")
                            .counter()
                            .count())
                    .isEqualTo(1);
            assertThat(meters.get("ratelimit.locks.acquisitions")
                            .tag("outcome", "acquired")
                            .counter()
                            .count())
                    .isEqualTo(1);
            assertThat(meters.get("ratelimit.fallbacks")
                            .tag("policy", "open")
                            .functionCounter()
                            .count())
                    .isZero();
            assertThat(meters.get("ratelimit.redis.circuit.open").gauge().value())
                    .isZero();
            // tag values are limit names and fixed words, never keys
            meters.getMeters().forEach(meter -> meter.getId().getTags().forEach(tag -> assertThat(tag.getValue())
                    .doesNotContain(tenant)
                    .doesNotContain(token)));
        });
    }

    @Test
    void endpointListsReadsAndResetsOnlyWhenEnabled() {
        runner(SharedRedis.get().url()).run(context -> {
            RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> limits =
                    (List<Map<String, Object>>) endpoint.limits().get("limits");
            assertThat(limits).anySatisfy(limit -> {
                assertThat(limit).containsEntry("name", "reports").containsEntry("limit", 2L);
                assertThat(limit.get("source").toString()).contains("Reports.run(String)");
                assertThat(limit.get("keys")).isEqualTo(List.of("#tenant"));
            });
            String tenant = "t-" + UUID.randomUUID();
            context.getBean(Reports.class).run(tenant);
            var state = endpoint.state("reports", "#tenant", tenant, null);
            assertThat(state.getStatus()).isEqualTo(200);
            assertThat(state.getBody().get("states").toString()).contains("remaining=1");
            assertThat(endpoint.state("reports", "#tenant", tenant, null)
                            .getBody()
                            .get("states")
                            .toString())
                    .as("reading takes nothing")
                    .contains("remaining=1");
            assertThat(endpoint.state("nope", "#tenant", tenant, null).getStatus())
                    .isEqualTo(404);
            assertThat(endpoint.reset("reports", "#tenant", tenant, null).getStatus())
                    .isEqualTo(403);
        });
        runner(SharedRedis.get().url())
                .withPropertyValues("ratelimit.actuator.reset-enabled=true")
                .run(context -> {
                    RateLimitsEndpoint endpoint = context.getBean(RateLimitsEndpoint.class);
                    Reports reports = context.getBean(Reports.class);
                    String tenant = "t-" + UUID.randomUUID();
                    reports.run(tenant);
                    reports.run(tenant);
                    assertThat(endpoint.reset("reports", "#tenant", tenant, null)
                                    .getStatus())
                            .isEqualTo(200);
                    assertThat(reports.run(tenant)).isEqualTo("ok");
                });
    }

    @Test
    void healthDoesNotFlapOnOneFailureAndReloadsScripts() {
        try (RedisProcess redis = RedisProcess.start()) {
            runner(redis.url())
                    .withPropertyValues("ratelimit.redis.failure-threshold=100")
                    .run(context -> {
                        HealthIndicator health = context.getBean("ratelimitHealthIndicator", HealthIndicator.class);
                        assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
                        assertThat(health.health(true).getDetails()).containsEntry("scriptsReloaded", 0);

                        redis.crash();
                        assertThat(health.health(true).getStatus())
                                .as("first failed check")
                                .isEqualTo(Status.UP);
                        assertThat(health.health(true).getStatus())
                                .as("second failed check")
                                .isEqualTo(Status.UP);
                        var third = health.health(true);
                        assertThat(third.getStatus())
                                .as("third failed check: up, the limiter decides in memory meanwhile")
                                .isEqualTo(Status.UP);
                        assertThat(third.getDetails())
                                .containsEntry("degraded", true)
                                .containsEntry("decisions", "in memory, per instance (local)");

                        redis.restart();
                        long deadline = System.nanoTime() + 20_000_000_000L;
                        var after = health.health(true);
                        while (after.getStatus() != Status.UP) {
                            assertThat(System.nanoTime()).as("health back up").isLessThan(deadline);
                            after = health.health(true);
                        }
                        assertThat((Integer) after.getDetails().get("scriptsReloaded"))
                                .isPositive();
                    });
        }
    }
}
