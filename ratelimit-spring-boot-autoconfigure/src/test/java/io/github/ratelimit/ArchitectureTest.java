package io.github.ratelimit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The layering of the published modules and their public API, pinned so that neither drifts unnoticed: the core knows
 * no Spring and no Redis, the decision flow and the web and annotation support know no storage, and each module's list
 * of public types changes only on purpose (with the README's list of them).
 */
class ArchitectureTest {

    /** The main classes of every module on this test's class path (the reactor's jars or classes folders). */
    static final JavaClasses STARTER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.github.ratelimit");

    private static final Pattern MODULE = Pattern.compile("/(ratelimit-[a-z-]+?)(?:/target/classes/|-\\d[^/]*\\.jar!)");

    /** The module a class was read from, by the name of its jar or of the folder of its classes. */
    static String moduleOf(JavaClass type) {
        String uri = type.getSource().orElseThrow().getUri().toString();
        Matcher matcher = MODULE.matcher(uri);
        assertThat(matcher.find())
                .as("the module of %s (%s)", type.getName(), uri)
                .isTrue();
        return matcher.group(1);
    }

    @Test
    void theCoreKnowsNoSpringNoRedisAndNoOtherLayer() {
        classes()
                .that()
                .resideInAPackage("io.github.ratelimit.core..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "org.slf4j..",
                        "org.jspecify..", // nullness in the types
                        "io.github.ratelimit.core..",
                        "io.github.ratelimit.annotation..")
                .check(STARTER);
    }

    /**
     * Of the auto-configuration, only the packages that build Redis ({@code autoconfigure.redis}) or show its state to
     * operators ({@code health}, {@code metrics}) know the Redis implementation or Redisson; the interception, the web
     * filters, the outbound clients, the endpoint and the observations talk to the SPIs of the core.
     */
    @Test
    void onlyTheRedisWiringAndItsOperatorViewsKnowRedis() {
        noClasses()
                .that()
                .resideInAPackage("io.github.ratelimit.autoconfigure..")
                .and()
                .resideOutsideOfPackages(
                        "io.github.ratelimit.autoconfigure.redis..",
                        "io.github.ratelimit.autoconfigure.health..",
                        "io.github.ratelimit.autoconfigure.metrics..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.redisson..", "io.github.ratelimit.redis..")
                .check(STARTER);
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
                        "org.jspecify..",
                        "io.github.ratelimit.core..",
                        "io.github.ratelimit.annotation..",
                        "io.github.ratelimit.local..",
                        "com.github.benmanes.caffeine..")
                .check(STARTER);
    }

    /** The decision flow is the core's SPIs and the limiter in memory put together, and nothing else. */
    @Test
    void theDecisionFlowKnowsOnlyTheCoreAndTheLimiterInMemory() {
        classes()
                .that()
                .resideInAPackage("io.github.ratelimit.decision..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "io.github.ratelimit.core..",
                        "io.github.ratelimit.annotation..",
                        "io.github.ratelimit.local..",
                        "io.github.ratelimit.decision..",
                        "org.jspecify..",
                        "org.slf4j..")
                .check(STARTER);
    }

    /** What modules share in an internal package never shows in the API: no public signature names it. */
    @Test
    void noPublicSignatureOfTheApiMentionsAnInternalType() {
        List<String> leaks = new java.util.ArrayList<>();
        for (JavaClass type : STARTER) {
            if (!type.getModifiers().contains(JavaModifier.PUBLIC)
                    || type.getPackageName().contains(".internal")) {
                continue;
            }
            type.getMethods().stream()
                    .filter(m -> m.getModifiers().contains(JavaModifier.PUBLIC)
                            || m.getModifiers().contains(JavaModifier.PROTECTED))
                    .forEach(method -> {
                        List<JavaClass> mentioned = new java.util.ArrayList<>(method.getRawParameterTypes());
                        mentioned.add(method.getRawReturnType());
                        mentioned.stream()
                                .filter(t -> t.getPackageName().contains(".internal"))
                                .forEach(t -> leaks.add(method.getFullName() + " mentions " + t.getName()));
                    });
            type.getConstructors().stream()
                    .filter(c -> c.getModifiers().contains(JavaModifier.PUBLIC))
                    .forEach(constructor -> constructor.getRawParameterTypes().stream()
                            .filter(t -> t.getPackageName().contains(".internal"))
                            .forEach(t -> leaks.add(constructor.getFullName() + " mentions " + t.getName())));
        }
        assertThat(leaks).isEmpty();
    }

    /**
     * The auto-configuration's feature packages ({@code redis}, {@code aop}, {@code servlet}, {@code reactive},
     * {@code client}, {@code endpoint}, {@code health}, {@code metrics}, {@code observation}, {@code openapi},
     * {@code aot}, {@code memory}) do not depend on each other in a cycle. What they share has a name: {@code
     * definition} (how limits are declared and compiled) knows only the main package's property types; {@code web}
     * (the HTTP side both stacks and the gateway share) knows those two; {@code internal} (the interceptors' adapters)
     * knows the three. The main package (properties, the decision flow's wiring) knows no feature either.
     */
    @Test
    void featurePackagesAreFreeOfCyclesAndShareOnlyNamedPackages() {
        slices().matching("io.github.ratelimit.autoconfigure.(*)..")
                .should()
                .beFreeOfCycles()
                .check(STARTER);
        String main = "io.github.ratelimit.autoconfigure";
        String definition = "io.github.ratelimit.autoconfigure.definition..";
        String web = "io.github.ratelimit.autoconfigure.web..";
        String internal = "io.github.ratelimit.autoconfigure.internal..";
        onlyKnows(main, main, definition, web, internal);
        onlyKnows(definition, main, definition);
        onlyKnows(web, main, definition, web);
        onlyKnows(internal, main, definition, web, internal);
    }

    /**
     * {@code ratelimit-redis} is a package per capability ({@code limits}, {@code locks}, {@code tokens}, {@code
     * concurrency}), each with its scripts beside it, over the connection: the main package (the connection, its guard
     * and the fleet's instances) and {@code internal} (what the capabilities share: scripts, keys, the budget's timer,
     * give-backs). No capability knows another, and the connection knows none of them.
     */
    @Test
    void theRedisCapabilitiesKnowOnlyTheConnection() {
        String connection = "io.github.ratelimit.redis";
        String internal = "io.github.ratelimit.redis.internal..";
        for (String capability : List.of("limits", "locks", "tokens", "concurrency")) {
            String own = connection + "." + capability + "..";
            classes()
                    .that()
                    .resideInAPackage(own)
                    .should()
                    .onlyDependOnClassesThat(JavaClass.Predicates.resideOutsideOfPackage("io.github.ratelimit.redis..")
                            .or(JavaClass.Predicates.resideInAnyPackage(own, connection, internal)))
                    .check(STARTER);
        }
        classes()
                .that()
                .resideInAnyPackage(connection, internal)
                .should()
                .onlyDependOnClassesThat(JavaClass.Predicates.resideOutsideOfPackage("io.github.ratelimit.redis..")
                        .or(JavaClass.Predicates.resideInAnyPackage(connection, internal)))
                .check(STARTER);
    }

    /**
     * A package a maintainer reads in one sitting: no package of the library's main code holds over 20 source files.
     * One is left as it is: {@code core}, the SPIs, values and exceptions every user imports (27 files), which a split
     * would move from under every application.
     */
    @Test
    void noPackageHoldsMoreThanTwentyFiles() {
        Map<String, Set<String>> files = new TreeMap<>();
        for (JavaClass type : STARTER) {
            type.getSource()
                    .flatMap(source -> source.getFileName())
                    .filter(name -> !name.equals("package-info.java"))
                    .ifPresent(name -> files.computeIfAbsent(type.getPackageName(), p -> new TreeSet<>())
                            .add(name));
        }
        assertThat(files.get("io.github.ratelimit.core")).as("the core's files").hasSizeLessThanOrEqualTo(27);
        files.remove("io.github.ratelimit.core");
        files.values().removeIf(names -> names.size() <= 20);
        assertThat(files).as("packages of over 20 files").isEmpty();
    }

    private static void onlyKnows(String packages, String... known) {
        classes()
                .that()
                .resideInAPackage(packages)
                .should()
                .onlyDependOnClassesThat(
                        JavaClass.Predicates.resideOutsideOfPackage("io.github.ratelimit.autoconfigure..")
                                .or(JavaClass.Predicates.resideInAnyPackage(known)))
                .check(STARTER);
    }

    /**
     * Nullness is in the types, as Spring Framework 7 has it: every package of the published modules (the annotations
     * aside, whose members cannot be null) is {@code @NullMarked}, so that NullAway checks it in the build and Kotlin
     * and IDEs read it.
     */
    @Test
    void everyPublishedPackageIsNullMarked() throws ClassNotFoundException {
        Set<String> packages = new TreeSet<>();
        for (JavaClass type : STARTER) {
            String module = moduleOf(type);
            if (Set.of(
                            "ratelimit-core",
                            "ratelimit-redis",
                            "ratelimit-spring-boot-autoconfigure",
                            "ratelimit-spring-cloud-gateway",
                            "ratelimit-embedded-redis",
                            "ratelimit-test-kit",
                            "ratelimit-test")
                    .contains(module)) {
                packages.add(type.getPackageName());
            }
        }
        assertThat(packages).hasSizeGreaterThan(20);
        for (String name : packages) {
            assertThat(Class.forName(name + ".package-info")
                            .isAnnotationPresent(org.jspecify.annotations.NullMarked.class))
                    .as("package %s is @NullMarked", name)
                    .isTrue();
        }
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

    /** The modules are where they should be: each package in one module, no module reaching into another's. */
    @Test
    void eachPackageLivesInItsModule() {
        Map<String, String> expected = Map.of(
                "io.github.ratelimit.annotation", "ratelimit-annotations",
                "io.github.ratelimit.core", "ratelimit-core",
                "io.github.ratelimit.decision", "ratelimit-core",
                "io.github.ratelimit.local", "ratelimit-core",
                "io.github.ratelimit.redis", "ratelimit-redis",
                "io.github.ratelimit.autoconfigure", "ratelimit-spring-boot-autoconfigure",
                "io.github.ratelimit.test.kit", "ratelimit-test-kit",
                "io.github.ratelimit.test", "ratelimit-test");
        for (JavaClass type : STARTER) {
            String pkg = type.getPackageName();
            String owner = expected.entrySet().stream()
                    .filter(e -> pkg.equals(e.getKey()) || pkg.startsWith(e.getKey() + "."))
                    .max(java.util.Comparator.comparingInt(e -> e.getKey().length())) // the closest package
                    .map(Map.Entry::getValue)
                    .orElse(null);
            assertThat(owner).as("the package %s is in no module's list", pkg).isNotNull();
            assertThat(moduleOf(type)).as("the module of %s", type.getName()).isEqualTo(owner);
        }
    }

    /**
     * Every public top-level type of each published module. A type added here is API: add it on purpose, with
     * javadoc, and to the README's list. The annotations module is all API by nature and is left out.
     */
    @Test
    void thePublicApiOfEachModuleIsItsList() {
        Map<String, Set<String>> actual = new TreeMap<>();
        for (JavaClass type : STARTER) {
            if (type.isTopLevelClass()
                    && type.getModifiers().contains(JavaModifier.PUBLIC)
                    && !type.getPackageName().endsWith(".internal")
                    && !type.getSimpleName().equals("package-info")) {
                String module = moduleOf(type);
                if (!module.equals("ratelimit-annotations")) {
                    actual.computeIfAbsent(module, m -> new TreeSet<>())
                            .add(type.getName().substring("io.github.ratelimit.".length()));
                }
            }
        }
        Map<String, Set<String>> expected = new TreeMap<>();
        PUBLIC_API.forEach((module, types) -> expected.put(module, new TreeSet<>(types)));
        assertThat(actual).isEqualTo(expected);
    }

    static final Map<String, List<String>> PUBLIC_API = Map.of(
            "ratelimit-core",
            List.of(
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
                    "core.SlotHolder",
                    // events: what the limiter does, told to listeners (metrics and observations are listeners)
                    "core.RateLimitEvents",
                    "core.RateLimitListener",
                    // values
                    "core.ClientIdentifier",
                    "core.Decision",
                    "core.LimitRequest",
                    "core.Messages",
                    "core.RateLimit",
                    "core.CalendarPeriod",
                    "core.Usage",
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
                    // the one decision flow every integration calls
                    "decision.DecidedCall",
                    "decision.Exemptions",
                    "decision.Fallbacks",
                    "decision.RateLimitDecisions"),
            "ratelimit-redis",
            List.of(
                    // the Redis implementations of the SPIs, for use without the auto-configuration
                    "redis.limits.RedisBlocks",
                    "redis.concurrency.RedisConcurrencyLimiter",
                    "redis.RedisConnector",
                    "redis.RedisGuard",
                    "redis.RedisInstances",
                    "redis.locks.RedisLockManager",
                    "redis.limits.RedisOverrides",
                    "redis.limits.RedisRateLimiter",
                    "redis.tokens.RedisSingleUseTokens"),
            "ratelimit-spring-boot-autoconfigure",
            List.of(
                    // what an application names: the auto-configurations (to exclude or order them), the properties
                    // and the rule types bound into them
                    "autoconfigure.ClientRuleSpec",
                    "autoconfigure.FilterRuleSpec",
                    "autoconfigure.RateLimitAutoConfiguration",
                    "autoconfigure.RateLimitBootVersionCheck",
                    "autoconfigure.RateLimitProperties",
                    "autoconfigure.aop.RateLimitAopAutoConfiguration",
                    "autoconfigure.aop.RateLimitArgumentResolversAutoConfiguration",
                    "autoconfigure.client.RateLimitClientAutoConfiguration",
                    "autoconfigure.endpoint.RateLimitEndpointAutoConfiguration",
                    "autoconfigure.health.RateLimitHealthAutoConfiguration",
                    "autoconfigure.memory.RateLimitMemoryAutoConfiguration",
                    "autoconfigure.metrics.RateLimitMetricsAutoConfiguration",
                    "autoconfigure.observation.RateLimitObservationAutoConfiguration",
                    "autoconfigure.openapi.RateLimitOpenApiAutoConfiguration",
                    "autoconfigure.reactive.RateLimitReactiveWebAutoConfiguration",
                    "autoconfigure.redis.RateLimitRedisAutoConfiguration",
                    "autoconfigure.redis.RateLimitRedissonAutoConfiguration",
                    "autoconfigure.servlet.RateLimitWebAutoConfiguration",
                    "autoconfigure.usage.RateLimitUsageAutoConfiguration",
                    "autoconfigure.refresh.RateLimitRefreshAutoConfiguration",
                    // what application code calls: customers' use of their limits, credits, resets
                    "autoconfigure.usage.RateLimitUsage",
                    // what both web stacks and the gateway module share, documented in each package-info:
                    // limits declared and compiled (rules, plans, keys) ...
                    "autoconfigure.definition.ClientLimits",
                    "autoconfigure.definition.DeclaredLimits",
                    "autoconfigure.definition.FilterRule",
                    "autoconfigure.definition.InvalidFilterRuleException",
                    "autoconfigure.definition.InvalidFilterRuleFailureAnalyzer",
                    "autoconfigure.definition.KeyResolvers",
                    "autoconfigure.definition.LimitDefinition",
                    "autoconfigure.definition.NamedLimits",
                    "autoconfigure.definition.PathRules",
                    "autoconfigure.definition.RefreshableLimits",
                    "autoconfigure.definition.Plans",
                    "autoconfigure.definition.SpelVariables",
                    // ... and the HTTP side: client addresses, refusals' answers, RateLimit fields, Redis's answers
                    "autoconfigure.web.ClientAddresses",
                    "autoconfigure.web.ForwardedHeadersCheck",
                    "autoconfigure.web.FromRedis",
                    "autoconfigure.web.RateLimitHeaders",
                    "autoconfigure.web.Refusals"),
            "ratelimit-test-kit",
            List.of(
                    // the SPI test kit: every store passes these; needs the core, JUnit and AssertJ only
                    "test.kit.ConcurrencyLimiterContract",
                    "test.kit.LockManagerContract",
                    "test.kit.Poll",
                    "test.kit.RateLimiterContract",
                    "test.kit.SingleUseTokensContract",
                    "test.kit.TwoInstances",
                    "test.kit.UsageContract",
                    "test.kit.WaitingContract"),
            "ratelimit-test",
            List.of(
                    // Spring test support
                    "test.AutoConfigureRateLimits",
                    "test.EmbeddedRedis",
                    // real Redis servers and clusters, and helpers, for tests of the limiter and of stores
                    "test.support.Causes",
                    "test.support.NoBlockingCalls",
                    "test.support.RateLimitFields",
                    "test.support.Stalls",
                    "test.support.RawRedis",
                    "test.support.RedisClusterProcess",
                    "test.support.RedisCommands",
                    "test.support.RedisProcess",
                    "test.support.RedisTopology",
                    "test.support.SharedCluster",
                    "test.support.SharedRedis"));
}
