package io.github.ratelimit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The starter's layering and its public API, pinned so that neither drifts unnoticed: the core knows no Spring and no
 * Redis, the decision flow and the web and annotation support know no storage, and the list of public types changes only on purpose (with the
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

    /**
     * The Spring side (interception, path rules, answers, the decision flow, metrics) lives in the auto-configuration
     * package, package-private, beside the auto-configurations that build it. Of it, only the Redis wiring and the
     * operator views of Redis (health, meters, the startup line) know the Redis implementation; the decision flow and
     * the web and annotation support talk to the SPIs of the core, and nothing of it but the Redis wiring knows
     * Redisson.
     */
    @Test
    void theDecisionFlowAndTheWebAndAnnotationSupportKnowNoStorage() {
        noClasses()
                .that()
                .resideInAPackage("io.github.ratelimit.autoconfigure..")
                .and(DescribedPredicate.describe(
                        "are not the Redis wiring or an operator view of Redis",
                        (JavaClass c) -> !KNOW_REDIS.contains(topLevel(c).getSimpleName())))
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.redisson..", "io.github.ratelimit.redis..")
                .check(STARTER);
    }

    /** The auto-configuration classes that may know Redis: they build it, or show its state to operators. */
    static final Set<String> KNOW_REDIS = Set.of(
            // the Redis wiring
            "RateLimitRedissonAutoConfiguration",
            "RateLimitAutoConfiguration",
            "RedisConnectionSettings",
            "ConnectionDetailsSettings",
            "RedisMemoryPolicyCheck",
            "RateLimitProperties", // its defaults are the Redis implementation's
            // operator views of Redis: health, meters, the startup line
            "RateLimitHealthAutoConfiguration",
            "RateLimitHealthIndicator",
            "RateLimitMetricsAutoConfiguration",
            "MeteringPostProcessor",
            "RateLimitMeters",
            "StartupSummary");

    static JavaClass topLevel(JavaClass type) {
        JavaClass c = type;
        while (c.getEnclosingClass().isPresent()) {
            c = c.getEnclosingClass().get();
        }
        return c;
    }

    @Test
    void theRedisImplementationKnowsNothingAboveIt() {
        noClasses()
                .that()
                .resideInAPackage("io.github.ratelimit.redis..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.github.ratelimit.autoconfigure..", "io.github.ratelimit.local..")
                .check(STARTER);
    }

    /** The limiter in memory (for when Redis cannot decide) is the core's SPI on Caffeine, and nothing else. */
    @Test
    void theLocalLimiterKnowsOnlyTheCore() {
        classes()
                .that()
                .resideInAPackage("io.github.ratelimit.local..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "io.github.ratelimit.core..",
                        "io.github.ratelimit.annotation..",
                        "io.github.ratelimit.local..",
                        "com.github.benmanes.caffeine..")
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
            // SPIs
            "core.ClientBlocks",
            "core.CallerContext",
            "core.ConcurrencyLimiter",
            "core.KeyResolver",
            "core.LimitOverrides",
            "core.LockManager",
            "core.PlanSource",
            "core.RateLimiter",
            "core.SingleUseTokens",
            // values
            "core.ClientIdentifier",
            "core.Decision",
            "core.LimitRequest",
            "core.Messages",
            "core.RateLimit",
            // exceptions
            "core.ConcurrencyLimitExceededException",
            "core.LockLostException",
            "core.LockNotAcquiredException",
            "core.RateLimitEvaluationException",
            "core.RateLimitExceededException",
            "core.RedisUnavailableException",
            "core.SingleUseTokenException",
            // the limiter in memory, for when Redis cannot decide
            "local.LocalRateLimiter",
            // the Redis implementations of the SPIs, for use without the auto-configuration
            "redis.RedisBlocks",
            "redis.RedisConcurrencyLimiter",
            "redis.RedisConnector",
            "redis.RedisGuard",
            "redis.RedisInstances",
            "redis.RedisLockManager",
            "redis.RedisOverrides",
            "redis.RedisRateLimiter",
            "redis.RedisSingleUseTokens");
}
