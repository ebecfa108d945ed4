package io.github.ratelimit.autoconfigure.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.fixtures.SharedRedis;
import jakarta.servlet.Filter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.autoconfigure.ConfigurationPropertiesRebinderAutoConfiguration;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * Spring Cloud's refresh of {@code ratelimit.*} (an {@link EnvironmentChangeEvent} after a property source changed,
 * with Spring Cloud's own rebinding of properties beans beside it), on a real Redis: a plan's quota and a path rule's
 * limit raised, lowered, or given another window, with what was counted kept where the window stays; an invalid change
 * refused as a whole; two instances refreshed one after the other.
 */
@ExtendWith(OutputCaptureExtension.class)
class LimitsRefreshTests {

    public static class Service {
        @RateLimited(plans = "quota", key = "#id")
        public String call(String id) {
            return "ok";
        }
    }

    public static class Changes implements RateLimitListener {
        final List<String> told = new CopyOnWriteArrayList<>();

        @Override
        public void operatorChanged(String action, String target) {
            told.add(action);
        }
    }

    /** The properties a refresh changes, in a source of their own, as a file, a ConfigMap or Config Server give. */
    private final Map<String, Object> limits = new ConcurrentHashMap<>(Map.of(
            "ratelimit.plans.groups.quota.plans.default[0].limit", "3",
            "ratelimit.plans.groups.quota.plans.default[0].window", "1h",
            "ratelimit.filter.rules[0].name", "ping",
            "ratelimit.filter.rules[0].paths[0]", "/ping",
            "ratelimit.filter.rules[0].key", "header:X-Client",
            "ratelimit.filter.rules[0].limits[0].limit", "3",
            "ratelimit.filter.rules[0].limits[0].window", "1h"));

    private WebApplicationContextRunner runner(String prefix) {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        ConfigurationPropertiesRebinderAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitWebAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.client.RateLimitClientAutoConfiguration.class,
                        RateLimitRefreshAutoConfiguration.class))
                .withInitializer(context -> {
                    context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("limits", limits));
                    new RefreshDefaults().postProcessEnvironment(context.getEnvironment(), null);
                })
                .withPropertyValues(
                        "spring.data.redis.url=" + SharedRedis.get().url(), "ratelimit.key-prefix=" + prefix + ":")
                .withBean(Service.class)
                .withBean(Changes.class);
    }

    private static String prefix() {
        return "refresh-" + UUID.randomUUID();
    }

    /** Changes the source, then tells the application as Spring Cloud's refresh does. */
    private void refresh(ApplicationContext context, Map<String, String> changed) {
        limits.putAll(changed);
        context.publishEvent(new EnvironmentChangeEvent(context, changed.keySet()));
    }

    private static int calls(ApplicationContext context, String id, int tries) {
        Service service = context.getBean(Service.class);
        int admitted = 0;
        for (int i = 0; i < tries; i++) {
            try {
                service.call(id);
                admitted++;
            } catch (RateLimitExceededException e) {
                // refused
            }
        }
        return admitted;
    }

    private static int pings(ApplicationContext context, String client, int tries) throws Exception {
        Filter filter = context.getBean("rateLimitFilter", Filter.class);
        int admitted = 0;
        for (int i = 0; i < tries; i++) {
            MockHttpServletRequest request = new MockHttpServletRequest("GET", "/ping");
            request.addHeader("X-Client", client);
            MockHttpServletResponse response = new MockHttpServletResponse();
            filter.doFilter(request, response, new MockFilterChain());
            if (response.getStatus() == 200) {
                admitted++;
            }
        }
        return admitted;
    }

    /** Calls sent to the partner's host, as the outbound clients send them: how many its rules admit. */
    private static int outbound(ApplicationContext context, int tries) {
        var limits = context.getBean(io.github.ratelimit.spring.client.OutboundLimits.class);
        int admitted = 0;
        for (int i = 0; i < tries; i++) {
            var matched = limits.matched("GET", java.net.URI.create("https://partner.example/quotes"));
            assertThat(matched).as("the partner's rule").isNotNull();
            try {
                io.github.ratelimit.spring.call.CallRunner.<Void, RuntimeException>run(
                        matched.start(), io.github.ratelimit.spring.call.CallRunner.Refused.thrown(), end -> null);
                admitted++;
            } catch (RateLimitExceededException e) {
                // refused
            }
        }
        return admitted;
    }

    /** Outbound rules are refreshed as path rules are: a raised budget gives the difference to every call sent. */
    @Test
    void outboundRulesFollowTheRefresh() {
        limits.putAll(Map.of(
                "ratelimit.client.rules[0].name", "partner",
                "ratelimit.client.rules[0].hosts[0]", "partner.example",
                "ratelimit.client.rules[0].limits[0].limit", "2",
                "ratelimit.client.rules[0].limits[0].window", "1h"));
        runner(prefix()).run(context -> {
            assertThat(outbound(context, 3)).isEqualTo(2);
            refresh(context, Map.of("ratelimit.client.rules[0].limits[0].limit", "4"));
            assertThat(outbound(context, 3)).as("2 of 4 used: 2 left").isEqualTo(2);
        });
    }

    private static Map<String, String> planQuota(String limit) {
        return Map.of("ratelimit.plans.groups.quota.plans.default[0].limit", limit);
    }

    private static Map<String, String> ruleLimit(String limit) {
        return Map.of("ratelimit.filter.rules[0].limits[0].limit", limit);
    }

    @Test
    void aRaisedLimitGivesTheDifferenceAndALoweredOneRefusesUntilTheWindowFreesIt() {
        runner(prefix()).run(context -> {
            assertThat(calls(context, "ann", 4)).isEqualTo(3);
            assertThat(pings(context, "ann", 4)).isEqualTo(3);

            refresh(
                    context,
                    Map.of(
                            "ratelimit.plans.groups.quota.plans.default[0].limit", "5",
                            "ratelimit.filter.rules[0].limits[0].limit", "5"));

            assertThat(calls(context, "ann", 4)).as("3 of 5 used: 2 left").isEqualTo(2);
            assertThat(pings(context, "ann", 4)).as("3 of 5 used: 2 left").isEqualTo(2);
            assertThat(calls(context, "bob", 6)).as("a new caller gets 5").isEqualTo(5);

            refresh(
                    context,
                    Map.of(
                            "ratelimit.plans.groups.quota.plans.default[0].limit", "2",
                            "ratelimit.filter.rules[0].limits[0].limit", "2"));

            assertThat(calls(context, "ann", 1)).as("5 used, limit 2").isZero();
            assertThat(pings(context, "ann", 1)).as("5 used, limit 2").isZero();
            assertThat(calls(context, "cid", 3)).isEqualTo(2);
            assertThat(context.getBean(Changes.class).told).containsExactly("refresh", "refresh");
            assertThat(context.getBean(RateLimitProperties.class)
                            .getFilter()
                            .getRules()
                            .get(0)
                            .limits()
                            .get(0)
                            .limit())
                    .as("the properties bean, bound anew")
                    .isEqualTo(2L);
        });
    }

    /** What the decision flow reads on each call follows the refresh too. */
    @Test
    void shadowModeFollowsTheRefresh() {
        runner(prefix()).run(context -> {
            assertThat(calls(context, "ann", 4)).isEqualTo(3);

            refresh(context, Map.of("ratelimit.shadow", "true"));

            assertThat(calls(context, "ann", 2))
                    .as("counted and reported, never refused")
                    .isEqualTo(2);
        });
    }

    @Test
    void anotherWindowCountsAfresh() {
        runner(prefix()).run(context -> {
            assertThat(calls(context, "ann", 4)).isEqualTo(3);

            refresh(context, Map.of("ratelimit.plans.groups.quota.plans.default[0].window", "2h"));

            assertThat(calls(context, "ann", 4)).as("a new window, a new count").isEqualTo(3);
        });
    }

    @Test
    void anInvalidChangeIsRefusedAsAWholeAndTheLimitsInForceStay(CapturedOutput output) {
        runner(prefix()).run(context -> {
            assertThat(calls(context, "ann", 2)).isEqualTo(2);

            Map<String, String> halfValid = new LinkedHashMap<>(planQuota("10"));
            halfValid.put("ratelimit.filter.rules[0].key", "nonsense-kind");
            refresh(context, halfValid);

            assertThat(calls(context, "ann", 4))
                    .as("the plan's raise was not applied either")
                    .isEqualTo(1);
            assertThat(pings(context, "ann", 4)).as("the rule in force stays").isEqualTo(3);
            assertThat(context.getBean(Changes.class).told).containsExactly("refresh_rejected");
            assertThat(context.getBean(RateLimitProperties.class)
                            .getPlans()
                            .getGroups()
                            .get("quota")
                            .getPlans()
                            .get("default")
                            .get(0)
                            .limit())
                    .as("the properties bean, untouched")
                    .isEqualTo(3L);

            refresh(context, Map.of("ratelimit.redis.timeout", "0"));
            assertThat(context.getBean(Changes.class).told).containsExactly("refresh_rejected", "refresh_rejected");
        });
        String out = output.getOut();
        assertThat(out)
                .contains("ERROR")
                .contains("The changed rate limit properties [ratelimit.filter.rules[0].key,"
                        + " ratelimit.plans.groups.quota.plans.default[0].limit] were refused as a whole;"
                        + " the limits in force stay: ")
                .contains("nonsense-kind")
                .contains("ratelimit.redis.timeout: must be at least 1 ms");
    }

    /** A plan group an annotation names cannot go away without a restart: the refresh is refused naming the method. */
    @Test
    void aPlanGroupAnAnnotationNamesCannotBeRemoved(CapturedOutput output) {
        runner(prefix()).run(context -> {
            limits.keySet().removeIf(key -> key.startsWith("ratelimit.plans."));
            limits.put("ratelimit.plans.groups.other.plans.default[0].limit", "1");
            limits.put("ratelimit.plans.groups.other.plans.default[0].window", "1h");
            context.publishEvent(new EnvironmentChangeEvent(
                    context, java.util.Set.of("ratelimit.plans.groups.quota.plans.default[0].limit")));

            assertThat(calls(context, "ann", 4)).isEqualTo(3);
        });
        assertThat(output.getOut())
                .contains("plan group 'quota' is not configured")
                .contains("which " + Service.class.getName());
    }

    /**
     * Two instances share the counts; each takes the new limit when it refreshes: 3 of 3 used, raised to 5 on one
     * instance, that one admits until 5 are used while the other still refuses at 3; once it refreshes too, both refuse
     * at 5.
     */
    @Test
    void twoInstancesRefreshedOneAfterTheOther() {
        String prefix = prefix();
        Map<String, Object> ofSecond = new ConcurrentHashMap<>(limits);
        WebApplicationContextRunner second = runner(prefix).withInitializer(context -> context.getEnvironment()
                .getPropertySources()
                .replace("limits", new MapPropertySource("limits", ofSecond)));
        runner(prefix)
                .run(one -> second.run(two -> {
                    assertThat(calls(one, "ann", 2) + calls(two, "ann", 2)).isEqualTo(3);

                    refresh(one, planQuota("5"));

                    assertThat(calls(two, "ann", 1))
                            .as("not refreshed yet: 3 of 3")
                            .isZero();
                    assertThat(calls(one, "ann", 1)).isEqualTo(1);

                    ofSecond.putAll(planQuota("5"));
                    two.publishEvent(
                            new EnvironmentChangeEvent(two, planQuota("5").keySet()));

                    assertThat(calls(two, "ann", 2)).as("4 of 5 used").isEqualTo(1);
                    assertThat(calls(one, "ann", 1) + calls(two, "ann", 1)).isZero();
                }));
    }
}
