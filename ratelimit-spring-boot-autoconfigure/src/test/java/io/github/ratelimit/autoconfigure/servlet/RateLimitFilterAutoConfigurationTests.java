package io.github.ratelimit.autoconfigure.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.autoconfigure.InvalidFilterRuleFailureAnalyzer;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import io.github.ratelimit.spring.servlet.RateLimitFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

class RateLimitFilterAutoConfigurationTests {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    RateLimitRedissonAutoConfiguration.class,
                    RateLimitRedisAutoConfiguration.class,
                    RateLimitAutoConfiguration.class,
                    io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                    RateLimitWebAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=" + SharedRedis.get().url());

    private static final String[] VALID = {
        "ratelimit.filter.rules[0].name=public",
        "ratelimit.filter.rules[0].paths[0]=/api/public/**",
        "ratelimit.filter.rules[0].limits[0].limit=20",
        "ratelimit.filter.rules[0].limits[0].window=1m"
    };

    @Test
    void noRulesNoFilter() {
        runner.run(context -> assertThat(context).doesNotHaveBean(FilterRegistrationBean.class));
    }

    @Test
    void rulesRegisterTheFilterAtItsOrder() {
        runner.withPropertyValues(VALID)
                .withPropertyValues("ratelimit.filter.order=-50")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    FilterRegistrationBean<?> registration = context.getBean(FilterRegistrationBean.class);
                    assertThat(registration.getFilter()).isInstanceOf(RateLimitFilter.class);
                    assertThat(registration.getOrder()).isEqualTo(-50);
                });
    }

    @Test
    void theGlobalSwitchTurnsTheFilterOff() {
        runner.withPropertyValues(VALID)
                .withPropertyValues("ratelimit.filter.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(FilterRegistrationBean.class));
    }

    @Test
    void badPatternNamesTheRuleAndProperty() {
        assertFails(
                "ratelimit.filter.rules[0].paths[0]",
                "is not a valid path pattern",
                "ratelimit.filter.rules[0].paths[0]=/api/{id",
                "ratelimit.filter.rules[0].limits[0].limit=1",
                "ratelimit.filter.rules[0].limits[0].window=1s");
    }

    @Test
    void limitBelowOne() {
        assertFails(
                "ratelimit.filter.rules[1].limits[0].limit",
                "must be at least 1, but was 0",
                concat(
                        VALID,
                        "ratelimit.filter.rules[1].paths[0]=/x",
                        "ratelimit.filter.rules[1].limits[0].limit=0",
                        "ratelimit.filter.rules[1].limits[0].window=1s"));
    }

    @Test
    void zeroWindow() {
        assertFails(
                "ratelimit.filter.rules[0].limits[1].window",
                "must be at least 1 ms",
                concat(
                        VALID,
                        "ratelimit.filter.rules[0].limits[1].limit=5",
                        "ratelimit.filter.rules[0].limits[1].window=0s"));
    }

    @Test
    void aCalendarPeriodThatIsNotOne() {
        assertFails(
                "ratelimit.filter.rules[0].limits[1].period",
                "period must be day, week or month, but was 'fortnight'",
                concat(
                        VALID,
                        "ratelimit.filter.rules[0].limits[1].limit=5",
                        "ratelimit.filter.rules[0].limits[1].period=fortnight"));
    }

    @Test
    void aZoneThatIsNotOne() {
        assertFails(
                "ratelimit.filter.rules[0].limits[1].zone",
                "zone must be a time zone such as UTC or Europe/Berlin, but was 'Mars/Olympus'",
                concat(
                        VALID,
                        "ratelimit.filter.rules[0].limits[1].limit=5",
                        "ratelimit.filter.rules[0].limits[1].period=month",
                        "ratelimit.filter.rules[0].limits[1].zone=Mars/Olympus"));
    }

    @Test
    void aPeriodWithAWindow() {
        assertFails(
                "ratelimit.filter.rules[0].limits[1].window",
                "leave it out: period 'month' gives the window",
                concat(
                        VALID,
                        "ratelimit.filter.rules[0].limits[1].limit=5",
                        "ratelimit.filter.rules[0].limits[1].window=30d",
                        "ratelimit.filter.rules[0].limits[1].period=month"));
    }

    @Test
    void aShareThatLeavesNothing() {
        assertFails(
                "ratelimit.filter.rules[0].limits[0].share",
                "leaves less than one unit",
                concat(VALID, "ratelimit.filter.rules[0].limits[0].share=0.01"));
    }

    @Test
    void aPenaltyOfNothing() {
        assertFails(
                "ratelimit.filter.rules[0].limits[0].penalty",
                "must be at least 1 ms",
                concat(VALID, "ratelimit.filter.rules[0].limits[0].penalty=0s"));
    }

    @Test
    void aCalendarPenaltyAndShareCompileIntoTheRulesLimits() {
        runner.withPropertyValues(concat(
                        VALID,
                        "ratelimit.filter.rules[0].limits[0].penalty=15m",
                        "ratelimit.filter.rules[0].limits[0].share=0.8",
                        "ratelimit.filter.rules[0].limits[1].limit=1000",
                        "ratelimit.filter.rules[0].limits[1].period=month",
                        "ratelimit.filter.rules[0].limits[1].zone=Europe/Berlin"))
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void unknownKeyType() {
        assertFails(
                "ratelimit.filter.rules[0].key",
                "must be ip, principal, client, header:<Name> or spel:",
                concat(VALID, "ratelimit.filter.rules[0].key=cookie:session"));
    }

    @Test
    void badSpel() {
        assertFails(
                "ratelimit.filter.rules[0].key",
                "is not a valid SpEL expression",
                concat(VALID, "ratelimit.filter.rules[0].key=spel:#request.getHeader("));
    }

    @Test
    void unknownMethod() {
        assertFails(
                "ratelimit.filter.rules[0].methods[0]",
                "must be one of",
                concat(VALID, "ratelimit.filter.rules[0].methods[0]=FETCH"));
    }

    @Test
    void unknownAlgorithmIsABindingFailureNamingTheProperty() {
        runner.withPropertyValues(concat(VALID, "ratelimit.filter.rules[0].limits[0].algorithm=leaky"))
                .run(context -> {
                    StringBuilder messages = new StringBuilder();
                    for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                        messages.append(t.getMessage()).append('\n');
                    }
                    assertThat(messages).contains("ratelimit.filter.rules[0].limits[0].algorithm");
                });
    }

    @Test
    void badTrustedProxy() {
        runner.withPropertyValues("ratelimit.client.trusted-proxies=10.0.0.0/8,not-an-ip")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("client.trustedProxies[1]")
                        .hasMessageContaining("not-an-ip"));
    }

    @Test
    void aSinglePathBindsAsAListOfOne() {
        runner.withPropertyValues(
                        "ratelimit.filter.rules[0].name=reports",
                        "ratelimit.filter.rules[0].paths=/reports/**",
                        "ratelimit.filter.rules[0].limits[0].limit=2",
                        "ratelimit.filter.rules[0].limits[0].window=1m")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RateLimitFilter.class).declaredLimits())
                            .singleElement()
                            .satisfies(d -> assertThat(d.source()).contains("/reports/**"));
                });
    }

    @Test
    void rulesWrittenAsAMapFailTheStartNamingTheProperty() {
        runner.withPropertyValues(
                        "ratelimit.filter.rules.public.paths=/api/public/**",
                        "ratelimit.filter.rules.public.limits[0].limit=20",
                        "ratelimit.filter.rules.public.limits[0].window=1m")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("ratelimit.filter.rules.public"));
    }

    @Test
    void aMisspeltRulesPropertyFailsTheStart() {
        runner.withPropertyValues(
                        "ratelimit.filter.rule[0].paths[0]=/api/public/**",
                        "ratelimit.filter.rule[0].limits[0].limit=20",
                        "ratelimit.filter.rule[0].limits[0].window=1m")
                .run(context ->
                        assertThat(context).getFailure().rootCause().hasMessageContaining("ratelimit.filter.rule[0]"));
    }

    /**
     * A module owns its settings: without {@code ratelimit-grpc} on the class path, nothing takes {@code
     * ratelimit.grpc.rules}, and the start fails naming it rather than leaving the rules unapplied without a word.
     */
    @Test
    void aModulesSettingWithoutTheModuleFailsTheStart() {
        runner.withPropertyValues(
                        "ratelimit.grpc.rules[0].name=greeter",
                        "ratelimit.grpc.rules[0].paths=ratelimit.sample.Greeter/Hello",
                        "ratelimit.grpc.rules[0].limits[0].limit=5",
                        "ratelimit.grpc.rules[0].limits[0].window=1s")
                .run(context ->
                        assertThat(context).getFailure().rootCause().hasMessageContaining("ratelimit.grpc.rules[0]"));
    }

    @Test
    void aPathWithoutALeadingSlashFailsTheStart() {
        assertFails(
                "ratelimit.filter.rules[0].paths[0]",
                "must start with '/'",
                concat(VALID, "ratelimit.filter.rules[0].paths[0]=api/public/**"));
    }

    @Test
    void aSpelKeyNamingAnUnknownVariableFailsTheStart() {
        assertFails(
                "ratelimit.filter.rules[0].key",
                "names #nosuch, which is not one of [client, ip, principal, request]",
                concat(VALID, "ratelimit.filter.rules[0].key=spel:#nosuch"));
    }

    private void assertFails(String property, String problem, String... properties) {
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            InvalidFilterRuleException cause = null;
            for (Throwable t = failure; t != null; t = t.getCause()) {
                if (t instanceof InvalidFilterRuleException rule) {
                    cause = rule;
                }
            }
            assertThat(cause).as("an InvalidFilterRuleException in %s", failure).isNotNull();
            assertThat(cause.property()).isEqualTo(property);
            assertThat(cause.getMessage()).contains(problem);
            FailureAnalysis analysis = new InvalidFilterRuleFailureAnalyzer().analyze(failure);
            assertThat(analysis.getAction()).startsWith("Fix " + property);
        });
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }
}
