package io.github.ratelimit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The starter's layering and its public API, pinned so that neither drifts unnoticed: the core knows no Spring and no
 * Redis, nothing above the Redis package knows Redisson, and the list of public types changes only on purpose (with the
 * README's list of them).
 */
class ArchitectureTest {

    static final JavaClasses STARTER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("io.github.ratelimit");

    @Test
    void theCoreKnowsNoSpringNoRedisAndNoOtherLayer() {
        classes()
                .that()
                .resideInAPackage("io.github.ratelimit.core..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "io.github.ratelimit.core..", "io.github.ratelimit.annotation..")
                .check(STARTER);
    }

    @Test
    void theDecisionFlowKnowsNoStorage() {
        noClasses()
                .that()
                .resideInAPackage("io.github.ratelimit.internal..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.redisson..",
                        "io.github.ratelimit.redis..",
                        "io.github.ratelimit.web..",
                        "io.github.ratelimit.aop..",
                        "io.github.ratelimit.actuate..",
                        "io.github.ratelimit.autoconfigure..")
                .check(STARTER);
    }

    @Test
    void annotationsAndWebKnowNoRedisson() {
        noClasses()
                .that()
                .resideInAnyPackage("io.github.ratelimit.aop..", "io.github.ratelimit.web..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.redisson..", "io.github.ratelimit.redis..", "io.github.ratelimit.autoconfigure..")
                .check(STARTER);
        noClasses()
                .that()
                .resideInAPackage("io.github.ratelimit.aop..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.github.ratelimit.web..")
                .check(STARTER);
    }

    @Test
    void theRedisImplementationKnowsNothingAboveIt() {
        noClasses()
                .that()
                .resideInAPackage("io.github.ratelimit.redis..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.github.ratelimit.web..",
                        "io.github.ratelimit.aop..",
                        "io.github.ratelimit.actuate..",
                        "io.github.ratelimit.autoconfigure..")
                .check(STARTER);
    }

    @Test
    void autoConfigurationClassesAreFinal() {
        classes()
                .that()
                .resideInAPackage("io.github.ratelimit.autoconfigure..")
                .and()
                .haveSimpleNameEndingWith("AutoConfiguration")
                .and()
                .areTopLevelClasses()
                .should()
                .haveModifier(JavaModifier.FINAL)
                .check(STARTER);
    }

    /**
     * Every public top-level type of the starter outside its auto-configuration package. A type added here is API:
     * add it on purpose, with javadoc, and to the README's list.
     */
    @Test
    void thePublicApiIsThisList() {
        TreeSet<String> actual = new TreeSet<>();
        for (JavaClass type : STARTER) {
            if (type.isTopLevelClass()
                    && type.getModifiers().contains(JavaModifier.PUBLIC)
                    && !type.getPackageName().startsWith("io.github.ratelimit.autoconfigure")
                    && !type.getPackageName().startsWith("io.github.ratelimit.annotation")
                    && !type.getSimpleName().equals("package-info")) {
                actual.add(type.getName().substring("io.github.ratelimit.".length()));
            }
        }
        assertThat(actual).containsExactlyElementsOf(new TreeSet<>(PUBLIC_API));
    }

    static final List<String> PUBLIC_API = List.of(
            // what applications write against: SPIs, values, exceptions
            "core.CallerContext",
            "core.ClientIdentifier",
            "core.ConcurrencyLimitExceededException",
            "core.ConcurrencyLimiter",
            "core.Decision",
            "core.DeclaredLimits",
            "core.InvalidDefinitionException",
            "core.KeyResolver",
            "core.LimitRequest",
            "core.LockLostException",
            "core.LockManager",
            "core.LockNotAcquiredException",
            "core.Messages",
            "core.PlanSource",
            "core.RateLimit",
            "core.RateLimitEvaluationException",
            "core.RateLimitExceededException",
            "core.RateLimiter",
            "core.RedisUnavailableException",
            "core.SingleUseTokenException",
            "core.SingleUseTokens",
            "web.FilterRuleSpec",
            // public only because the auto-configuration builds them (bean types); not API
            "actuate.MeteringPostProcessor",
            "actuate.ObservingPostProcessor",
            "actuate.RateLimitHealthIndicator",
            "actuate.RateLimitsEndpoint",
            "aop.AnnotationStartupValidator",
            "aop.ConcurrencyLimitedAdvisor",
            "aop.LockedAdvisor",
            "aop.RateLimitAdvisor",
            "aop.SingleUseAdvisor",
            "internal.Cidr",
            "internal.Fallbacks",
            "internal.Futures",
            "internal.IpAddresses",
            "internal.KeyResolvers",
            "internal.LimitDefinition",
            "internal.LogThrottle",
            "internal.Plans",
            "internal.RateLimitDecisions",
            "internal.SpelVariables",
            "redis.RedisConcurrencyLimiter",
            "redis.RedisConnector",
            "redis.RedisGuard",
            "redis.RedisHealthProbe",
            "redis.RedisLockManager",
            "redis.RedisRateLimiter",
            "redis.RedisSingleUseTokens",
            "web.ClientAddresses",
            "web.InterceptorArgumentResolver",
            "web.InvalidFilterRuleException",
            "web.LockExceptionHandler",
            "web.RateLimitExceptionHandler",
            "web.RateLimitFilter",
            "web.RateLimitWebExceptionHandler",
            "web.RateLimitWebFilter",
            "web.ReactiveInterceptorArgumentResolver",
            "web.RedisUnavailableHandler",
            "web.ServletCallerContext",
            "web.SingleUseTokenExceptionHandler");
}
