package io.github.ratelimit.autoconfigure.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import io.github.ratelimit.spring.reactive.RateLimitWebExceptionHandler;
import io.github.ratelimit.spring.reactive.RateLimitWebFilter;
import io.github.ratelimit.spring.servlet.RateLimitExceptionHandler;
import io.github.ratelimit.spring.servlet.RateLimitFilter;
import io.github.ratelimit.spring.servlet.ServletCallerContext;
import io.github.ratelimit.spring.web.ClientAddresses;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.web.reactive.config.WebFluxConfigurer;

/**
 * The starter picks its web side from the application type: the servlet filter and exception handlers for a servlet
 * application, the web filter and exception handler for a reactive one, neither for an application without a web
 * server; the core (limiter, tokens, locks) in every case.
 */
class WebStackAutoConfigurationTests {

    private static final AutoConfigurations ALL = AutoConfigurations.of(
            AopAutoConfiguration.class,
            RateLimitRedissonAutoConfiguration.class,
            RateLimitRedisAutoConfiguration.class,
            RateLimitAutoConfiguration.class,
            io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
            RateLimitWebAutoConfiguration.class,
            RateLimitReactiveWebAutoConfiguration.class,
            io.github.ratelimit.autoconfigure.aop.RateLimitArgumentResolversAutoConfiguration.class);

    private static final String[] RULE = {
        "spring.data.redis.url=" + SharedRedis.get().url(),
        "ratelimit.filter.rules[0].name=public",
        "ratelimit.filter.rules[0].paths[0]=/api/public/**",
        "ratelimit.filter.rules[0].limits[0].limit=20",
        "ratelimit.filter.rules[0].limits[0].window=1m"
    };

    @Test
    void aServletApplicationGetsTheServletSideOnly() {
        new WebApplicationContextRunner()
                .withConfiguration(ALL)
                .withPropertyValues(RULE)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(FilterRegistrationBean.class);
                    assertThat(context).hasSingleBean(RateLimitExceptionHandler.class);
                    assertThat(context).hasSingleBean(ServletCallerContext.class);
                    assertThat(context).doesNotHaveBean(RateLimitWebFilter.class);
                    assertThat(context).doesNotHaveBean(RateLimitWebExceptionHandler.class);
                    assertThat(context).doesNotHaveBean(WebFluxConfigurer.class);
                    assertThat(context).hasBean("rateLimitForwardedHeadersCheck");
                    assertThat(context).doesNotHaveBean("rateLimitReactiveForwardedHeadersCheck");
                });
    }

    @Test
    void aReactiveApplicationGetsTheReactiveSideOnlyEvenWithoutTheServletApi() {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(ALL)
                .withClassLoader(new FilteredClassLoader("jakarta.servlet", "org.springframework.web.servlet"))
                .withPropertyValues(RULE)
                .withPropertyValues("ratelimit.filter.order=-70")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RateLimitWebFilter filter = context.getBean(RateLimitWebFilter.class);
                    assertThat(filter.getOrder()).isEqualTo(-70);
                    assertThat(filter.declaredLimits()).hasSize(1);
                    assertThat(context).hasSingleBean(RateLimitWebExceptionHandler.class);
                    assertThat(context).hasSingleBean(ClientAddresses.class);
                    assertThat(context.getBeansOfType(DeclaredLimits.class).values())
                            .as("the rules are listed for the endpoint and the startup summary")
                            .contains(filter);
                    assertThat(context).doesNotHaveBean(RateLimitFilter.class);
                    assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class);
                    assertThat(context).doesNotHaveBean(ServletCallerContext.class);
                    assertThat(context).hasSingleBean(RateLimiter.class);
                    assertThat(context).hasSingleBean(SingleUseTokens.class);
                    assertThat(context).hasSingleBean(LockManager.class);
                    assertThat(context).hasBean("rateLimitReactiveForwardedHeadersCheck");
                    assertThat(context).doesNotHaveBean("rateLimitForwardedHeadersCheck");
                });
    }

    @Test
    void anApplicationWithoutAWebServerGetsTheCoreOnly() {
        new ApplicationContextRunner()
                .withConfiguration(ALL)
                .withPropertyValues(RULE)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(RateLimiter.class);
                    assertThat(context).hasSingleBean(SingleUseTokens.class);
                    assertThat(context).hasSingleBean(LockManager.class);
                    assertThat(context).doesNotHaveBean(ClientAddresses.class);
                    assertThat(context).doesNotHaveBean(RateLimitFilter.class);
                    assertThat(context).doesNotHaveBean(RateLimitWebFilter.class);
                    assertThat(context).doesNotHaveBean(RateLimitWebExceptionHandler.class);
                    assertThat(context).doesNotHaveBean("rateLimitForwardedHeadersCheck");
                    assertThat(context).doesNotHaveBean("rateLimitReactiveForwardedHeadersCheck");
                });
    }

    @Test
    void theReactiveSideBacksOffForTheApplicationsOwnBeans() {
        RateLimitWebExceptionHandler own = new RateLimitWebExceptionHandler(List.of(), true);
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(ALL)
                .withPropertyValues(RULE)
                .withBean("ownHandler", RateLimitWebExceptionHandler.class, () -> own)
                .run(context -> assertThat(context.getBean(RateLimitWebExceptionHandler.class))
                        .isSameAs(own));
    }

    @Test
    void withRateLimitsOffTheReactiveFilterAppliesNoRuleButStillCarriesTheCaller() {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(ALL)
                .withPropertyValues(RULE)
                .withPropertyValues("ratelimit.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RateLimitWebFilter.class).declaredLimits())
                            .isEmpty();
                    assertThat(context).hasSingleBean(SingleUseTokens.class);
                    assertThat(context).hasSingleBean(LockManager.class);
                });
    }

    @Test
    void anInvalidRuleFailsTheReactiveStartNamingTheProperty() {
        new ReactiveWebApplicationContextRunner()
                .withConfiguration(ALL)
                .withPropertyValues(RULE)
                .withPropertyValues("ratelimit.filter.rules[0].limits[0].limit=0")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasRootCauseInstanceOf(InvalidFilterRuleException.class)
                        .rootCause()
                        .hasMessageContaining("ratelimit.filter.rules[0].limits[0].limit")
                        .hasMessageContaining("must be at least 1, but was 0"));
    }
}
