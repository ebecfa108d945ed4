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
 * no Spring and no Redis, the decision flow and the web and annotation support know no storage, the integrations decide
 * through the engine's shared API and never through Redis, and each module's list of public types changes only on
 * purpose (with docs/reference.md's table of them). This module depends on every published one, so that all of them are
 * read at once.
 */
class ArchitectureTest {

    /** The main classes of every published module and of the test fixtures (the reactor's jars or classes folders). */
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
     * Of the engine and its auto-configuration, only the packages that build Redis ({@code autoconfigure.redis}) or
     * show its state to operators ({@code health}, {@code metrics}) know the Redis implementation or Redisson; the
     * interception, the web filters, the outbound clients, the endpoint and the observations talk to the SPIs of the
     * core.
     */
    @Test
    void onlyTheRedisWiringAndItsOperatorViewsKnowRedis() {
        noClasses()
                .that()
                .resideInAnyPackage("io.github.ratelimit.autoconfigure..", "io.github.ratelimit.spring..")
                .and()
                .resideOutsideOfPackages(
                        "io.github.ratelimit.autoconfigure.redis..",
                        "io.github.ratelimit.autoconfigure.health..",
                        "io.github.ratelimit.autoconfigure.metrics..",
                        "io.github.ratelimit.spring.metrics..")
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
                .resideInAnyPackage(
                        "io.github.ratelimit.autoconfigure..",
                        "io.github.ratelimit.spring..",
                        "io.github.ratelimit.local..")
                .check(STARTER);
    }

    /**
     * {@code ratelimit-spring} is the engine on plain Spring: it knows nothing of the auto-configuration, and of Spring
     * Boot only the two binding annotations its rule records carry for Boot's binder (absent at run time without Boot,
     * which the JVM allows), and no store (its Redis meters are the auto-configuration's).
     */
    @Test
    void theEngineKnowsNoAutoConfigurationAndNoBoot() {
        noClasses()
                .that()
                .resideInAPackage("io.github.ratelimit.spring..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.github.ratelimit.autoconfigure..")
                .check(STARTER);
        noClasses()
                .that()
                .resideInAPackage("io.github.ratelimit.spring..")
                .should()
                .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("org.springframework.boot..")
                        .and(JavaClass.Predicates.resideOutsideOfPackage(
                                "org.springframework.boot.context.properties.bind")))
                .check(STARTER);
        // nor any store: the Redis meters are the auto-configuration's
        noClasses()
                .that()
                .resideInAPackage("io.github.ratelimit.spring..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.github.ratelimit.redis..")
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

    /**
     * Public only so that the auto-configuration can create it: the bean that reads what the advisors declare for the
     * OpenAPI documentation and the metrics, an internal type by what it implements.
     */
    private static final Set<String> WIRING_OF_INTERNALS = Set.of("io.github.ratelimit.spring.aop.AdvisorDeclarations");

    /**
     * An {@code internal} package is its module's own; what another module's main code takes from one is this list, and
     * grows only on purpose. The store (Redis) and the engine take from the core what every implementation must do
     * alike: the messages users read, futures, lock bookkeeping and token rules, the log throttle, addresses and CIDR
     * blocks, and the adaptive limit's step, which the Redis script runs line by line and the memory store will run as
     * it is. The auto-configuration takes the property checks' wording and blocks from the core, and the memory
     * store's holder name; of the engine it uses only public packages ({@code spring.wiring} for what Boot's wiring and
     * an application's alike declare).
     */
    @Test
    void internalTypesCrossModulesOnlyAsListed() {
        Map<String, Set<String>> crossing = new TreeMap<>();
        for (JavaClass type : STARTER) {
            String from = moduleOf(type);
            if (from.equals("ratelimit-test-fixtures")) {
                continue; // the project's test plumbing, never published
            }
            for (com.tngtech.archunit.core.domain.Dependency dependency : type.getDirectDependenciesFromSelf()) {
                JavaClass target = dependency.getTargetClass().getBaseComponentType();
                if (target.getPackageName().startsWith("io.github.ratelimit.")
                        && target.getPackageName().contains(".internal")
                        && target.getSource().isPresent()
                        && !moduleOf(target).equals(from)) {
                    crossing.computeIfAbsent(from, m -> new TreeSet<>())
                            .add(target.getName()
                                    .substring("io.github.ratelimit.".length())
                                    .replaceAll("\\$.*", ""));
                }
            }
        }
        assertThat(crossing)
                .isEqualTo(Map.of(
                        "ratelimit-redis",
                        Set.of(
                                "core.internal.AdaptiveSlots",
                                "core.internal.Futures",
                                "core.internal.LockHolders",
                                "core.internal.LogThrottle",
                                "core.internal.LossCallbacks",
                                "core.internal.Messages",
                                "core.internal.NestedLockHandle",
                                "core.internal.TokenRules"),
                        "ratelimit-spring",
                        Set.of(
                                "core.internal.Cidr",
                                "core.internal.Futures",
                                "core.internal.IpAddresses",
                                "core.internal.LogThrottle",
                                "core.internal.Messages",
                                "core.internal.Unannounced"),
                        "ratelimit-spring-boot-autoconfigure",
                        Set.of("core.internal.Cidr", "core.internal.LockHolders", "core.internal.Messages")));
    }

    /** What modules share in an internal package never shows in the API: no public signature names it. */
    @Test
    void noPublicSignatureOfTheApiMentionsAnInternalType() {
        List<String> leaks = new java.util.ArrayList<>();
        for (JavaClass type : STARTER) {
            if (!type.getModifiers().contains(JavaModifier.PUBLIC)
                    || type.getPackageName().contains(".internal")
                    || WIRING_OF_INTERNALS.contains(type.getName())) {
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
     * The engine's feature packages ({@code aop}, {@code servlet}, {@code reactive}, {@code client}, {@code endpoint},
     * {@code metrics}, {@code observation}, {@code openapi}, {@code aot}, {@code usage}) do not depend on each other in
     * a cycle, nor do the auto-configuration's. What they share has a name: {@code definition} (how limits are declared
     * and compiled) knows no other package of the engine; {@code web} (the HTTP side both stacks and the gateway
     * share) knows {@code definition}; {@code internal} (the interceptors' adapters) knows the two.
     */
    @Test
    void featurePackagesAreFreeOfCyclesAndShareOnlyNamedPackages() {
        slices().matching("io.github.ratelimit.autoconfigure.(*)..")
                .should()
                .beFreeOfCycles()
                .check(STARTER);
        slices().matching("io.github.ratelimit.spring.(*)..")
                .should()
                .beFreeOfCycles()
                .check(STARTER);
        String definition = "io.github.ratelimit.spring.definition..";
        String web = "io.github.ratelimit.spring.web..";
        String internal = "io.github.ratelimit.spring.internal..";
        onlyKnows(definition, definition);
        onlyKnows(web, definition, web);
        onlyKnows(internal, definition, web, internal);
    }

    /**
     * One runner per call: of the engine and its wiring, only {@code spring.call} begins a decided call and tells its
     * end ({@code completed}, {@code failed} or their async forms); the interceptor, both web filters and the outbound
     * clients hand it their call.
     */
    @Test
    void onlyTheRunnerBeginsAndEndsADecidedCall() {
        Set<String> lifecycle = Set.of("completed", "failed", "completedAsync", "failedAsync");
        com.tngtech.archunit.base.DescribedPredicate<com.tngtech.archunit.core.domain.JavaMethodCall> drives =
                com.tngtech.archunit.base.DescribedPredicate.describe(
                        "a call that begins or ends a decided call",
                        call -> (call.getTargetOwner().isEquivalentTo(io.github.ratelimit.decision.DecidedCall.class)
                                        && lifecycle.contains(call.getName()))
                                || (call.getTargetOwner()
                                                .isEquivalentTo(io.github.ratelimit.decision.RateLimitDecisions.class)
                                        && Set.of("begin", "beginAsync").contains(call.getName())));
        noClasses()
                .that()
                .resideInAnyPackage(
                        "io.github.ratelimit.spring..",
                        "io.github.ratelimit.autoconfigure..",
                        "io.github.ratelimit.grpc..",
                        "io.github.ratelimit.graphql..",
                        "io.github.ratelimit.kafka..",
                        "io.github.ratelimit.gateway..")
                .and()
                .resideOutsideOfPackage("io.github.ratelimit.spring.call..")
                .should()
                .callMethodWhere(drives)
                .check(STARTER);
    }

    /**
     * The integrations beyond HTTP's filters (gRPC, GraphQL, Kafka, the gateway) decide through the decision flow and
     * the runner, never through Redis itself; of the auto-configuration they use only its main package (the properties,
     * what a refresh rebuilds), and of the engine only the named packages each needs, each with a documented API: the
     * limit definitions, the HTTP side the web stacks share, the runner of a call and the outbound rules; never {@code
     * internal} or a feature package.
     */
    @Test
    void theIntegrationsUseTheSharedApiOnlyAndNeverRedis() {
        Map<String, List<String>> engineUsed = Map.of(
                "grpc", List.of("definition", "web", "call", "client"),
                "graphql", List.of("definition", "web", "call"),
                "kafka", List.of("web"),
                "gateway", List.of("definition", "web", "call"));
        engineUsed.forEach((integration, packages) -> {
            String own = "io.github.ratelimit." + integration + "..";
            noClasses()
                    .that()
                    .resideInAPackage(own)
                    .should()
                    .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.github.ratelimit.autoconfigure..")
                            .and(JavaClass.Predicates.resideOutsideOfPackage("io.github.ratelimit.autoconfigure")))
                    .check(STARTER);
            noClasses()
                    .that()
                    .resideInAPackage(own)
                    .should()
                    .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.github.ratelimit.spring..")
                            .and(JavaClass.Predicates.resideOutsideOfPackages(packages.stream()
                                    .map(p -> "io.github.ratelimit.spring." + p)
                                    .toArray(String[]::new))))
                    .check(STARTER);
            noClasses()
                    .that()
                    .resideInAPackage(own)
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("org.redisson..", "io.github.ratelimit.redis..")
                    .check(STARTER);
        });
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

    /** A package a maintainer reads in one sitting: no package of the library's main code holds over 20 source files. */
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
        files.values().removeIf(names -> names.size() <= 20);
        assertThat(files).as("packages of over 20 files").isEmpty();
    }

    private static void onlyKnows(String packages, String... known) {
        classes()
                .that()
                .resideInAPackage(packages)
                .should()
                .onlyDependOnClassesThat(JavaClass.Predicates.resideOutsideOfPackage("io.github.ratelimit.spring..")
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
                            "ratelimit-spring",
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
        Map<String, String> expected = Map.ofEntries(
                Map.entry("io.github.ratelimit.annotation", "ratelimit-annotations"),
                Map.entry("io.github.ratelimit.core", "ratelimit-core"),
                Map.entry("io.github.ratelimit.decision", "ratelimit-core"),
                Map.entry("io.github.ratelimit.local", "ratelimit-core"),
                Map.entry("io.github.ratelimit.redis", "ratelimit-redis"),
                Map.entry("io.github.ratelimit.spring", "ratelimit-spring"),
                Map.entry("io.github.ratelimit.autoconfigure", "ratelimit-spring-boot-autoconfigure"),
                Map.entry("io.github.ratelimit.gateway", "ratelimit-spring-cloud-gateway"),
                Map.entry("io.github.ratelimit.grpc", "ratelimit-grpc"),
                Map.entry("io.github.ratelimit.graphql", "ratelimit-graphql"),
                Map.entry("io.github.ratelimit.kafka", "ratelimit-kafka"),
                Map.entry("io.github.ratelimit.embedded", "ratelimit-embedded-redis"),
                Map.entry("io.github.ratelimit.test.kit", "ratelimit-test-kit"),
                Map.entry("io.github.ratelimit.test", "ratelimit-test"),
                Map.entry("io.github.ratelimit.fixtures", "ratelimit-test-fixtures"));
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
     * javadoc, and to docs/reference.md's table of its module. The annotations module is all API by nature and is left out, and the
     * project's test plumbing ({@code ratelimit-test-fixtures}) is never published.
     */
    @Test
    void thePublicApiOfEachModuleIsItsList() {
        Map<String, Set<String>> actual = new TreeMap<>();
        for (JavaClass type : STARTER) {
            if (type.isTopLevelClass()
                    && type.getModifiers().contains(JavaModifier.PUBLIC)
                    && !type.getPackageName().contains(".internal")
                    && !type.getSimpleName().equals("package-info")) {
                String module = moduleOf(type);
                if (!module.equals("ratelimit-annotations") && !module.equals("ratelimit-test-fixtures")) {
                    actual.computeIfAbsent(module, m -> new TreeSet<>())
                            .add(type.getName().substring("io.github.ratelimit.".length()));
                }
            }
        }
        Map<String, Set<String>> expected = new TreeMap<>();
        PUBLIC_API.forEach((module, types) -> expected.put(module, new TreeSet<>(types)));
        assertThat(actual).isEqualTo(expected);
    }

    /**
     * docs/reference.md's table of each published module lists exactly its public types: a user reads the API there, so
     * a type added, removed or moved shows in the docs in the same change.
     */
    @Test
    void theReferenceHasATableOfEachModulesPublicApi() throws java.io.IOException {
        Pattern moduleHeading = Pattern.compile("^### `(ratelimit-[a-z-]+)`$");
        Pattern typeRow = Pattern.compile("^\\| `([a-z.]+\\.[A-Z][A-Za-z]+)` \\|");
        Map<String, Set<String>> tables = new TreeMap<>();
        String module = null;
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("..", "docs", "reference.md"))) {
            Matcher heading = moduleHeading.matcher(line);
            Matcher row = typeRow.matcher(line);
            if (line.startsWith("## ")) {
                module = null;
            } else if (heading.matches()) {
                module = heading.group(1);
                tables.put(module, new TreeSet<>());
            } else if (module != null && row.find()) {
                tables.get(module).add(row.group(1));
            }
        }
        assertThat(tables.keySet()).as("the modules with a table").contains("ratelimit-annotations");
        tables.remove("ratelimit-annotations"); // all API by nature, not pinned type by type
        Map<String, Set<String>> expected = new TreeMap<>();
        PUBLIC_API.forEach((name, types) -> expected.put(name, new TreeSet<>(types)));
        assertThat(tables).isEqualTo(expected);
    }

    static final Map<String, List<String>> PUBLIC_API = Map.ofEntries(
            Map.entry(
                    "ratelimit-core",
                    List.of(
                            // SPIs
                            "core.ClientBlocks",
                            "core.CallerContext",
                            "core.concurrency.AdaptiveConcurrencyLimiter",
                            "core.concurrency.ConcurrencyLimiter",
                            "core.KeyResolver",
                            "core.LimitOverrides",
                            "core.locks.LockManager",
                            "core.PlanSource",
                            "core.RateLimiter",
                            "core.tokens.SingleUseTokens",
                            "core.SlotHolder",
                            // events: what the limiter does, told to listeners (metrics and observations are listeners)
                            "core.RateLimitEvents",
                            "core.RateLimitListener",
                            // values
                            "core.ClientIdentifier",
                            "core.Decision",
                            "core.LimitRequest",
                            "core.RateLimit",
                            "core.CalendarPeriod",
                            "core.Usage",
                            "core.concurrency.AdaptiveSettings",
                            // exceptions
                            "core.concurrency.ConcurrencyLimitExceededException",
                            "core.locks.LockLostException",
                            "core.locks.LockNotAcquiredException",
                            "core.RateLimitEvaluationException",
                            "core.RateLimitExceededException",
                            "core.RedisUnavailableException",
                            "core.tokens.SingleUseTokenException",
                            // the limiter in memory, for when Redis cannot decide, and the rest of the memory store
                            "local.LocalClientBlocks",
                            "local.LocalConcurrencyLimiter",
                            "local.LocalLimitOverrides",
                            "local.LocalLockManager",
                            "local.LocalRateLimiter",
                            "local.LocalSingleUseTokens",
                            // the one decision flow every integration calls
                            "decision.DecidedCall",
                            "decision.Exemptions",
                            "decision.Fallbacks",
                            "decision.RateLimitDecisions")),
            Map.entry(
                    "ratelimit-redis",
                    List.of(
                            // the Redis implementations of the SPIs, for use without the auto-configuration
                            "redis.limits.RedisBlocks",
                            "redis.concurrency.RedisConcurrencyLimiter",
                            "redis.RedisConnectionSettings",
                            "redis.RedisConnector",
                            "redis.RedisGuard",
                            "redis.RedisInstances",
                            "redis.locks.RedisLockManager",
                            "redis.limits.RedisOverrides",
                            "redis.limits.RedisRateLimiter",
                            "redis.tokens.RedisSingleUseTokens")),
            Map.entry(
                    "ratelimit-spring",
                    List.of(
                            // the engine an application wires itself without Boot (the auto-configuration wires the
                            // same): the advisors of the annotations, checked at startup, and the handler parameters
                            // they fill ...
                            "spring.aop.AdvisorDeclarations",
                            "spring.aop.AnnotationStartupValidator",
                            "spring.aop.ConcurrencyLimitedAdvisor",
                            "spring.aop.InterceptorArgumentResolver",
                            "spring.aop.LockedAdvisor",
                            "spring.aop.RateLimitAdvisor",
                            "spring.aop.ReactiveInterceptorArgumentResolver",
                            "spring.aop.SingleUseAdvisor",
                            // ... the one runner of a decided call, which every integration hands its call ...
                            "spring.call.CallRunner",
                            // ... the path-rule filters of both stacks and their answers ...
                            "spring.servlet.LockExceptionHandler",
                            "spring.servlet.RateLimitExceptionHandler",
                            "spring.servlet.RateLimitFilter",
                            "spring.servlet.RedisUnavailableHandler",
                            "spring.servlet.ServletCallerContext",
                            "spring.servlet.SingleUseTokenExceptionHandler",
                            "spring.reactive.RateLimitWebExceptionHandler",
                            "spring.reactive.RateLimitWebFilter",
                            // ... outbound clients, operators' operations, meters, observations and OpenAPI ...
                            "spring.client.OutboundClients",
                            "spring.client.OutboundLimits",
                            "spring.endpoint.AdaptiveLimitOperations",
                            "spring.endpoint.OperatorAnswer",
                            "spring.endpoint.RateLimitOperations",
                            "spring.metrics.RateLimitMeters",
                            "spring.metrics.RateLimitMetricsListener",
                            "spring.observation.RateLimitObservationListener",
                            "spring.openapi.RateLimitOpenApi",
                            // limits changed without a restart, put in force as a whole or refused
                            "spring.refresh.LimitsRefresh",
                            // what application code calls: customers' use of their limits, credits, resets
                            "spring.usage.RateLimitUsage",
                            // what an application that wires the engine itself declares beside the advisors
                            "spring.wiring.LiveInstances",
                            "spring.wiring.RateLimitListeners",
                            "spring.wiring.RateLimitWarmUp",
                            "spring.wiring.StartupSummary",
                            // what both web stacks and the gateway module share, documented in each package-info:
                            // limits declared and compiled (rules, plans, keys) and the rule types properties bind ...
                            "spring.definition.ClientLimits",
                            "spring.definition.ClientRuleSpec",
                            "spring.definition.ConcurrencySpec",
                            "spring.definition.DeclaredLimits",
                            "spring.definition.FilterRuleSpec",
                            "spring.definition.InvalidDefinitionException",
                            "spring.definition.InvalidFilterRuleException",
                            "spring.definition.KeyResolvers",
                            "spring.definition.LimitDefinition",
                            "spring.definition.NamedLimits",
                            "spring.definition.PathRules",
                            "spring.definition.RefreshableLimits",
                            "spring.definition.Plans",
                            // ... and the HTTP side: client addresses, refusals' answers, RateLimit fields
                            "spring.web.ClientAddresses",
                            "spring.web.RateLimitHeaders",
                            "spring.web.Refusals")),
            Map.entry(
                    "ratelimit-spring-boot-autoconfigure",
                    List.of(
                            // what an application names: the auto-configurations (to exclude or order them) and
                            // the properties
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
                            // limits a refresh rebuilds and the failure report of a rule (the gateway module's too)
                            "autoconfigure.RefreshPart",
                            "autoconfigure.InvalidFilterRuleFailureAnalyzer")),
            Map.entry(
                    "ratelimit-spring-cloud-gateway",
                    List.of(
                            // Spring Cloud Gateway's routes: the server-webmvc filter functions, the server-webflux
                            // route limiter, their auto-configurations and the ratelimit.gateway settings
                            "gateway.RateLimitFilterFunctions",
                            "gateway.RateLimitGatewayMvcAutoConfiguration",
                            "gateway.RateLimitGatewayProperties",
                            "gateway.RateLimitGatewayWebFluxAutoConfiguration",
                            "gateway.RateLimitRouteLimiter")),
            Map.entry(
                    "ratelimit-grpc",
                    List.of(
                            // the interceptors of a server's services and of a client's channels, the statuses and
                            // trailers of a refusal, the auto-configuration and the ratelimit.grpc settings
                            "grpc.GrpcRefusals",
                            "grpc.RateLimitClientInterceptor",
                            "grpc.RateLimitGrpcAutoConfiguration",
                            "grpc.RateLimitGrpcProperties",
                            "grpc.RateLimitServerInterceptor")),
            Map.entry(
                    "ratelimit-graphql",
                    List.of(
                            // operations limited by their cost, the errors of a refusal, the auto-configuration and the
                            // ratelimit.graphql settings
                            "graphql.GraphQlOperationLimits",
                            "graphql.GraphQlRefusals",
                            "graphql.RateLimitGraphQlAutoConfiguration",
                            "graphql.RateLimitGraphQlProperties")),
            Map.entry(
                    "ratelimit-kafka",
                    List.of(
                            // listeners that wait out a refusal, and the auto-configuration that installs them
                            "kafka.RateLimitKafkaAutoConfiguration", "kafka.RateLimitedListeners")),
            Map.entry(
                    "ratelimit-embedded-redis",
                    List.of(
                            // a Redis for development, started when none is configured
                            "embedded.EmbeddedRedisInitializer")),
            Map.entry(
                    "ratelimit-test-kit",
                    List.of(
                            // the SPI test kit: every store passes these; needs the core, JUnit and AssertJ only
                            "test.kit.AdaptiveConcurrencyLimiterContract",
                            "test.kit.ConcurrencyLimiterContract",
                            "test.kit.LockManagerContract",
                            "test.kit.Poll",
                            "test.kit.RateLimiterContract",
                            "test.kit.SingleUseTokensContract",
                            "test.kit.TwoInstances",
                            "test.kit.UsageContract",
                            "test.kit.WaitingContract")),
            Map.entry(
                    "ratelimit-test",
                    List.of(
                            // Spring test support
                            "test.AutoConfigureRateLimits",
                            "test.EmbeddedRedis",
                            // real Redis servers and clusters for an application's tests, the raw client they set up
                            // with, the RateLimit fields as an RFC 9651 parser reads them, BlockHound for reactive
                            // tests; the project's own plumbing is in ratelimit-test-fixtures, never published
                            "test.support.NoBlockingCalls",
                            "test.support.RateLimitFields",
                            "test.support.RawRedis",
                            "test.support.RedisClusterProcess",
                            "test.support.RedisProcess",
                            "test.support.RedisTopology")));
}
