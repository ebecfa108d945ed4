package io.github.ratelimit.plans;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.core.PlanSource;
import io.github.ratelimit.core.PlanSource.Quota;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.support.RateLimitFields;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Limits per plan, on a real Redis and across two instances (two application contexts sharing it): each plan's exact
 * admissions, a plan change mid-window (a downgrade keeps the counts, an upgrade adds the difference), a customer's
 * contract changed at run time taking effect on the next call, bad plans and limits falling back to the default plan
 * (logged once, counted), and startup validation naming what is wrong.
 */
@ExtendWith(OutputCaptureExtension.class)
class PlansTests {

    static class Reports {
        @RateLimited(plans = "reports", key = "#apiKey")
        public String report(String apiKey) {
            return "report";
        }

        @RateLimited(plans = "reports", key = "#apiKey", plan = "#tier")
        public String reportFor(String apiKey, Object tier) {
            return "report";
        }
    }

    /** A plan source the test changes while the instances run, as a database of customers would change. */
    static final class Contracts implements PlanSource {
        final Map<String, String> plans = new ConcurrentHashMap<>();
        final Map<String, List<Quota>> limits = new ConcurrentHashMap<>();

        @Override
        public String planOf(String group, String customer) {
            return plans.get(customer);
        }

        @Override
        public List<Quota> limitsOf(String group, String plan, String customer) {
            return limits.get(customer);
        }
    }

    private static final String[] PLANS = {
        "spring.data.redis.url=" + SharedRedis.get().url(),
        "ratelimit.redis.require-at-startup=true",
        "ratelimit.redis.connect-timeout=20s", // the first connection on a busy machine
        // exactness under 32 threads on a busy machine: a call that missed a 200 ms budget would fail open
        "ratelimit.redis.timeout=5s",
        "ratelimit.plans.groups.reports.plans.free[0].limit=2",
        "ratelimit.plans.groups.reports.plans.free[0].window=1h",
        "ratelimit.plans.groups.reports.plans.pro[0].limit=20",
        "ratelimit.plans.groups.reports.plans.pro[0].window=1h",
        "ratelimit.plans.groups.reports.plans.default[0].limit=1",
        "ratelimit.plans.groups.reports.plans.default[0].window=1h",
        "ratelimit.plans.customers.key-free=free",
        "ratelimit.plans.customers.key-pro=pro"
    };

    private ApplicationContextRunner runner(String prefix) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitMetricsAutoConfiguration.class))
                .withPropertyValues(PLANS)
                .withPropertyValues("ratelimit.key-prefix=" + prefix)
                .withBean(SimpleMeterRegistry.class)
                .withBean(Reports.class);
    }

    /** Runs the test with two instances sharing Redis and the key prefix. */
    private void twoInstances(Contracts contracts, TwoInstances test) {
        String prefix = "plans-" + UUID.randomUUID() + ":";
        ApplicationContextRunner runner = runner(prefix);
        if (contracts != null) {
            runner = runner.withBean(Contracts.class, () -> contracts);
        }
        ApplicationContextRunner both = runner;
        both.run(one -> both.run(two -> test.run(one, two)));
    }

    interface TwoInstances {
        void run(AssertableApplicationContext one, AssertableApplicationContext two) throws Exception;
    }

    @Test
    void eachPlanAdmitsExactlyItsQuotaAcrossTwoInstances() {
        twoInstances(null, (one, two) -> {
            Reports a = one.getBean(Reports.class);
            Reports b = two.getBean(Reports.class);
            assertThat(admitted(a, b, "key-free", 32)).isEqualTo(2);
            assertThat(admitted(a, b, "key-pro", 32)).isEqualTo(20);
            assertThat(admitted(a, b, "an-unknown-key", 32))
                    .as("the default plan")
                    .isEqualTo(1);
            MeterRegistry registry = one.getBean(MeterRegistry.class);
            assertThat(registry.get("ratelimit.decisions")
                            .tag("limit", "reports")
                            .tag("plan", "pro")
                            .tag("outcome", "allowed")
                            .counter()
                            .count())
                    .isPositive();
        });
    }

    @Test
    void aPlanChangeMidWindowKeepsTheCountsAndAnUpgradeAddsTheDifference() {
        Contracts contracts = new Contracts();
        twoInstances(contracts, (one, two) -> {
            Reports a = one.getBean(Reports.class);
            Reports b = two.getBean(Reports.class);
            contracts.plans.put("acme", "pro");
            assertThat(admitted(a, b, "acme", 5)).isEqualTo(5);
            contracts.plans.put("acme", "free"); // a downgrade: 5 counted, free allows 2
            assertThat(admitted(a, b, "acme", 8)).isZero();
            contracts.plans.put("acme", "pro"); // back up: the rest of pro's 20, exactly
            assertThat(admitted(a, b, "acme", 32)).isEqualTo(15);

            contracts.plans.put("globex", "free");
            assertThat(admitted(a, b, "globex", 8)).isEqualTo(2);
            contracts.plans.put("globex", "pro"); // an upgrade: the difference at once
            assertThat(admitted(a, b, "globex", 32)).isEqualTo(18);
        });
    }

    @Test
    void aCustomersContractChangedAtRunTimeAppliesFromTheNextCall() {
        Contracts contracts = new Contracts();
        twoInstances(contracts, (one, two) -> {
            Reports a = one.getBean(Reports.class);
            Reports b = two.getBean(Reports.class);
            contracts.plans.put("initech", "pro");
            contracts.limits.put("initech", List.of(Quota.of(5, Duration.ofHours(1))));
            assertThat(admitted(a, b, "initech", 16)).isEqualTo(5);
            contracts.limits.put("initech", List.of(Quota.of(8, Duration.ofHours(1))));
            assertThat(admitted(a, b, "initech", 16)).isEqualTo(3);
        });
    }

    @Test
    void invalidLimitsAndPlansFallBackToTheDefaultPlanLoggedOnceAndCounted(CapturedOutput output) {
        Contracts contracts = new Contracts();
        twoInstances(contracts, (one, two) -> {
            Reports a = one.getBean(Reports.class);
            Reports b = two.getBean(Reports.class);
            contracts.plans.put("broken", "pro");
            contracts.limits.put("broken", List.of(Quota.of(0, Duration.ofHours(1))));
            assertThat(admitted(a, b, "broken", 8))
                    .as("the default plan's 1, never unlimited")
                    .isEqualTo(1);
            contracts.plans.put("typo", "prro");
            assertThat(admitted(a, b, "typo", 8)).isEqualTo(1);
            // a plan expression that gives something other than a name
            int admitted = 0;
            for (int i = 0; i < 4; i++) {
                try {
                    a.reportFor("numeric", 42);
                    admitted++;
                } catch (RateLimitExceededException e) {
                    // refused by the default plan
                }
            }
            assertThat(admitted).isEqualTo(1);
            assertThat(a.reportFor("named", "pro")).isEqualTo("report");

            MeterRegistry registry = one.getBean(MeterRegistry.class);
            assertThat(registry.get("ratelimit.plans.fallbacks")
                            .tag("group", "reports")
                            .tag("reason", "invalid_limits")
                            .counter()
                            .count())
                    .isPositive();
            assertThat(registry.get("ratelimit.plans.fallbacks")
                            .tag("reason", "unknown_plan")
                            .counter()
                            .count())
                    .isPositive();
            assertThat(registry.get("ratelimit.plans.fallbacks")
                            .tag("reason", "expression")
                            .counter()
                            .count())
                    .isEqualTo(4);
        });
        String log = output.getOut();
        assertThat(log.split("the plan source's limits are not valid", -1))
                .as("logged once per instance")
                .hasSizeLessThanOrEqualTo(3);
        assertThat(log).contains("plan 'prro' is not one of").contains("gave a Integer, not a plan name");
    }

    @Test
    void startupNamesAnUnknownGroupAPlanWithoutLimitsAndATokenBucketPlan() {
        runner("plans-start:").withBean(UnknownGroup.class).run(context -> assertThat(context)
                .getFailure()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("UnknownGroup.report")
                .hasMessageContaining("plan group 'reprots' is not configured")
                .hasMessageContaining("[reports]"));
        runner("plans-start:")
                .withPropertyValues("ratelimit.plans.groups.reports.default-plan=gold")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("default-plan is 'gold', which is not a plan of the group"));
        runner("plans-start:")
                .withPropertyValues(
                        "ratelimit.plans.groups.exports.plans.default[0].limit=5",
                        "ratelimit.plans.groups.exports.plans.default[0].window=1s",
                        "ratelimit.plans.groups.exports.plans.default[0].algorithm=token-bucket")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("ratelimit.plans.groups.exports.plans.default[0]")
                        .hasMessageContaining("TOKEN_BUCKET"));
    }

    static class UnknownGroup {
        @RateLimited(plans = "reprots", key = "#apiKey")
        public String report(String apiKey) {
            return "report";
        }
    }

    @RestController
    static class RuleReports {
        @GetMapping("/rules/reports")
        String report() {
            return "report";
        }
    }

    /** A path rule may name a plan group too; the RateLimit fields show the caller's own plan's quota. */
    @Test
    void aPathRuleOfAPlanGroupAndItsHeaders() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        WebMvcAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitWebAutoConfiguration.class))
                .withPropertyValues(PLANS)
                .withPropertyValues(
                        "ratelimit.key-prefix=plans-rule-" + UUID.randomUUID() + ":",
                        "ratelimit.filter.rules[0].paths=/rules/reports",
                        "ratelimit.filter.rules[0].plans=reports",
                        "ratelimit.filter.rules[0].key=header:X-API-Key")
                .withBean(RuleReports.class)
                .run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context)
                            .addFilters(
                                    context.getBean(org.springframework.boot.web.servlet.FilterRegistrationBean.class)
                                            .getFilter())
                            .build();
                    MockHttpServletResponse first = get(mvc, "key-pro");
                    RateLimitFields fields =
                            RateLimitFields.parse(first.getHeader("RateLimit-Policy"), first.getHeader("RateLimit"));
                    String item = fields.names().get(0);
                    assertThat(item).startsWith("reports");
                    assertThat(fields.quota(item)).as("pro's quota").isEqualTo(20);
                    assertThat(fields.remaining(item)).isEqualTo(19);
                    get(mvc, "key-free");
                    get(mvc, "key-free");
                    MockHttpServletResponse refused = get(mvc, "key-free");
                    assertThat(refused.getStatus()).isEqualTo(429);
                    assertThat(RateLimitFields.parse(
                                            refused.getHeader("RateLimit-Policy"), refused.getHeader("RateLimit"))
                                    .quota(item))
                            .as("free's quota")
                            .isEqualTo(2);
                });
    }

    private static MockHttpServletResponse get(MockMvc mvc, String apiKey) throws Exception {
        return mvc.perform(MockMvcRequestBuilders.get("/rules/reports").header("X-API-Key", apiKey))
                .andReturn()
                .getResponse();
    }

    /** `calls` threads alternating between the two instances, all at once; how many were admitted. */
    private static int admitted(Reports a, Reports b, String apiKey, int calls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(calls);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            Reports instance = i % 2 == 0 ? a : b;
            results.add(pool.submit(() -> {
                go.await();
                try {
                    instance.report(apiKey);
                    return true;
                } catch (RateLimitExceededException e) {
                    return false;
                }
            }));
        }
        go.countDown();
        int admitted = 0;
        for (Future<Boolean> result : results) {
            admitted += result.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        pool.shutdown();
        return admitted;
    }
}
