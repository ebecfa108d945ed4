package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.annotation.CountOn;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.spring.aop.RateLimitAdvisor;
import io.github.ratelimit.spring.definition.InvalidDefinitionException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class RateLimitAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    RateLimitRedissonAutoConfiguration.class,
                    RateLimitRedisAutoConfiguration.class,
                    RateLimitAutoConfiguration.class,
                    io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                    RateLimitWebAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.url=" + SharedRedis.get().url());

    @Test
    void createsClientLimiterAndAdvisorByDefault() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(RedissonClient.class);
            assertThat(context).hasSingleBean(RedisRateLimiter.class);
            assertThat(context).hasSingleBean(RateLimitAdvisor.class);
            assertThat(context.getBean(RateLimitProperties.class).getKeyPrefix())
                    .isEqualTo("ratelimit:");
        });
    }

    @Test
    void closesTheClientItCreatedOnShutdown() {
        RedissonClient[] client = new RedissonClient[1];
        runner.run(context -> client[0] = context.getBean(RedissonClient.class));
        assertThat(client[0].isShutdown()).isTrue();
    }

    @Test
    void usesTheApplicationsRedissonClientAndLeavesItOpen() {
        RedissonClient own = SharedRedis.get().newClient();
        try {
            runner.withBean("myRedisson", RedissonClient.class, () -> own).run(context -> {
                assertThat(context).hasSingleBean(RedissonClient.class);
                assertThat(context.getBean(RedissonClient.class)).isSameAs(own);
            });
            assertThat(own.isShutdown()).isFalse();
        } finally {
            own.shutdown();
        }
    }

    @Test
    void backsOffForAnApplicationsRateLimiter() {
        RateLimiter mine = requests -> new Decision(true, List.of(), Instant.EPOCH);
        runner.withBean(RateLimiter.class, () -> mine).run(context -> {
            assertThat(context).doesNotHaveBean(RedisRateLimiter.class);
            assertThat(context.getBean(RateLimiter.class)).isSameAs(mine);
        });
    }

    @Test
    void keyPrefixCanBeChanged() {
        runner.withPropertyValues("ratelimit.key-prefix=shop:rl:").run(context -> assertThat(context)
                .getBean(RateLimitProperties.class)
                .extracting(RateLimitProperties::getKeyPrefix)
                .isEqualTo("shop:rl:"));
    }

    @Test
    void keyPrefixWithBracesFailsTheStart() {
        runner.withPropertyValues("ratelimit.key-prefix={x}").run(context -> assertThat(context)
                .getFailure()
                .rootCause()
                .hasMessageContaining("keyPrefix")
                .hasMessageContaining("{x}"));
    }

    @Test
    void aReplicaWaitNotShorterThanTheBudgetFailsTheStart() {
        runner.withPropertyValues("ratelimit.redis.timeout=200ms", "ratelimit.durability.replica-wait=200ms")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("durability.replicaWait")
                        .hasMessageContaining("shorter than ratelimit.redis.timeout"));
    }

    @Test
    void connectsFromHostAndPort() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + SharedRedis.get().port(),
                        "spring.data.redis.timeout=2s")
                .run(context -> {
                    RedissonClient client = context.getBean(RedissonClient.class);
                    assertThat(client.getBucket("autoconfig-probe").isExists()).isFalse();
                });
    }

    @Test
    void zeroLimitFailsTheStartNamingTheMethod() {
        assertStartFails(ZeroLimit.class, "ZeroLimit$Service.call()", "limit must be at least 1, but was 0");
    }

    @Test
    void zeroWindowFailsTheStart() {
        assertStartFails(ZeroWindow.class, "ZeroWindow$Service.call()", "windowMs must be at least 1, but was 0");
    }

    @Test
    void unparsableKeyFailsTheStart() {
        assertStartFails(BadSpel.class, "BadSpel$Service.call(String)", "key '#id +' is not a valid SpEL expression");
    }

    @Test
    void keyNamingAnUnknownParameterFailsTheStart() {
        assertStartFails(UnknownParameter.class, "UnknownParameter$Service.call(String)", "names #userid");
    }

    @Test
    void costOutsideTheLimitFailsTheStart() {
        assertStartFails(CostAboveLimit.class, "CostAboveLimit$Service.call()", "cost 10 is outside 0..5");
    }

    @Test
    void oneNameDeclaredTwoWaysFailsTheStart() {
        assertStartFails(ConflictingNames.class, "ConflictingNames$", "limit name 'shared' is declared as");
    }

    @Test
    void aChargeThatCannotWorkFailsTheStartSayingWhy() {
        assertStartFails(
                BadCharges.class, "BadCharges$Service.withCost()", "charge '#result' and cost '2' are both given");
        assertStartFails(ChargeWithCountOn.class, "withCountOn()", "with countOn = FAILURE");
        assertStartFails(ChargeOnFlux.class, "onFlux()", "on a method returning Flux");
        assertStartFails(ChargeFailuresOnly.class, "failuresOnly()", "chargeFailures is set without charge");
        assertStartFails(ChargeUnknown.class, "unknown()", "charge '#answer' names #answer");
        assertStartFails(ChargeNegativeWait.class, "negativeWait()", "waitMs must be at least 0");
    }

    @Test
    void aCalendarPeriodPenaltyOrShareThatCannotWorkFailsTheStartSayingWhy() {
        assertStartFails(Fortnight.class, "Fortnight$Service.call()", "period must be day, week or month");
        assertStartFails(Mars.class, "Mars$Service.call()", "zone must be a time zone");
        assertStartFails(PeriodAndWindow.class, "PeriodAndWindow$Service.call()", "leave out windowMs");
        assertStartFails(BucketPerMonth.class, "BucketPerMonth$Service.call()", "leave out algorithm = TOKEN_BUCKET");
        assertStartFails(MonthlyFailures.class, "MonthlyFailures$Service.call()", "with countOn = FAILURE or charge");
        assertStartFails(NegativePenalty.class, "NegativePenalty$Service.call()", "penaltyMs must be at least 0");
        assertStartFails(TinyShare.class, "TinyShare$Service.call()", "leaves less than one unit");
        assertStartFails(ShareOfSeveral.class, "ShareOfSeveral$Service.call()", "counts in its name's only window");
        assertStartFails(SlidingLease.class, "SlidingLease$Service.call()", "is leased (lease 0.1) and cannot have");
        assertStartFails(SlidingLease.class, "SlidingLease$Service.call()", "use FIXED_WINDOW");
        assertStartFails(LeaseCharged.class, "LeaseCharged$Service.call()", "a leased limit is taken from its lease");
        assertStartFails(LeaseTooBig.class, "LeaseTooBig$Service.call()", "lease must be 0 (not leased)");
    }

    @Test
    void badNameFailsTheStart() {
        assertStartFails(BadName.class, "BadName$Service.call()", "limit name must be");
    }

    @Test
    void failureAnalyzerSaysWhatToFix() {
        runner.withUserConfiguration(ZeroLimit.class).run(context -> {
            Throwable failure = context.getStartupFailure();
            InvalidDefinitionException cause = findCause(failure);
            FailureAnalysis analysis = new InvalidDefinitionFailureAnalyzer().analyze(failure);
            assertThat(analysis.getDescription())
                    .contains("ZeroLimit$Service.call()")
                    .contains("but was 0");
            assertThat(analysis.getAction()).contains("Fix the @RateLimited declaration on " + cause.source());
        });
    }

    private void assertStartFails(Class<?> configuration, String method, String problem) {
        runner.withUserConfiguration(configuration).run(context -> {
            assertThat(context).hasFailed();
            InvalidDefinitionException cause = findCause(context.getStartupFailure());
            assertThat(cause.getMessage()).contains(method).contains(problem);
        });
    }

    private static InvalidDefinitionException findCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidDefinitionException definition) {
                return definition;
            }
        }
        throw new AssertionError("no InvalidDefinitionException in " + failure, failure);
    }

    @Configuration(proxyBeanMethods = false)
    static class Fortnight {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, period = "fortnight", key = "'k'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Mars {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, period = "month", zone = "Mars/Olympus", key = "'k'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PeriodAndWindow {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, period = "month", windowMs = 1000, key = "'k'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BucketPerMonth {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, period = "month", algorithm = Algorithm.TOKEN_BUCKET, key = "'k'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MonthlyFailures {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, period = "month", countOn = CountOn.FAILURE, key = "'k'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NegativePenalty {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, windowMs = 1000, penaltyMs = -1, key = "'k'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TinyShare {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, windowMs = 1000, share = 0.1, key = "'k'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SlidingLease {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 50, windowMs = 1000, lease = 0.1, key = "'all'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LeaseCharged {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(
                    limit = 50,
                    windowMs = 1000,
                    algorithm = Algorithm.FIXED_WINDOW,
                    lease = 0.1,
                    countOn = CountOn.FAILURE,
                    key = "'all'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LeaseTooBig {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 50, windowMs = 1000, algorithm = Algorithm.FIXED_WINDOW, lease = 2, key = "'all'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ShareOfSeveral {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, windowMs = 1000, share = 0.5, name = "several", key = "'k'")
            @RateLimited(limit = 50, windowMs = 60_000, share = 0.5, name = "several", key = "'k'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ZeroLimit {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 0, windowMs = 1000, key = "'k'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ZeroWindow {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, windowMs = 0, key = "'k'")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadSpel {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, windowMs = 1000, key = "#id +")
            public void call(String id) {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UnknownParameter {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, windowMs = 1000, key = "#userid")
            public void call(String userId) {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CostAboveLimit {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, windowMs = 1000, key = "'k'", cost = "10")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadCharges {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, windowMs = 1000, key = "'k'", cost = "2", charge = "#result")
            public int withCost() {
                return 1;
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ChargeWithCountOn {
        @Bean
        Target service() {
            return new Target();
        }

        static class Target {
            @RateLimited(
                    limit = 5,
                    windowMs = 1000,
                    key = "'k'",
                    charge = "#result",
                    countOn = io.github.ratelimit.annotation.CountOn.FAILURE)
            public int withCountOn() {
                return 1;
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ChargeOnFlux {
        @Bean
        Target service() {
            return new Target();
        }

        static class Target {
            @RateLimited(limit = 5, windowMs = 1000, key = "'k'", charge = "#result")
            public reactor.core.publisher.Flux<Integer> onFlux() {
                return reactor.core.publisher.Flux.just(1);
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ChargeFailuresOnly {
        @Bean
        Target service() {
            return new Target();
        }

        static class Target {
            @RateLimited(limit = 5, windowMs = 1000, key = "'k'", chargeFailures = true)
            public int failuresOnly() {
                return 1;
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ChargeUnknown {
        @Bean
        Target service() {
            return new Target();
        }

        static class Target {
            @RateLimited(limit = 5, windowMs = 1000, key = "'k'", charge = "#answer")
            public int unknown() {
                return 1;
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ChargeNegativeWait {
        @Bean
        Target service() {
            return new Target();
        }

        static class Target {
            @RateLimited(limit = 5, windowMs = 1000, key = "'k'", waitMs = -1)
            public int negativeWait() {
                return 1;
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadName {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(limit = 5, windowMs = 1000, key = "'k'", name = "a{b}")
            public void call() {}
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ConflictingNames {
        @Bean
        First first() {
            return new First();
        }

        @Bean
        Second second() {
            return new Second();
        }

        static class First {
            @RateLimited(limit = 5, windowMs = 1000, key = "'k'", name = "shared")
            public void call() {}
        }

        static class Second {
            @RateLimited(limit = 6, windowMs = 1000, key = "'k'", name = "shared")
            public void call() {}
        }
    }
}
