package io.github.ratelimit.gateway;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The gateway module's public API, pinned as the other modules' are: what routes and applications name, nothing more;
 * and it decides through the starter's decision flow, never through Redis itself.
 */
class GatewayArchitectureTest {

    static final JavaClasses GATEWAY = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.github.ratelimit.gateway");

    @Test
    void thePublicApiIsItsList() {
        Set<String> actual = new TreeSet<>();
        for (JavaClass type : GATEWAY) {
            if (type.getModifiers().contains(JavaModifier.PUBLIC)) {
                actual.add(type.getName().substring("io.github.ratelimit.gateway.".length()));
            }
        }
        assertThat(actual)
                .containsExactly(
                        "RateLimitFilterFunctions",
                        "RateLimitFilterFunctions$FilterSupplier",
                        "RateLimitGatewayMvcAutoConfiguration",
                        "RateLimitGatewayProperties",
                        "RateLimitGatewayWebFluxAutoConfiguration",
                        "RateLimitRouteLimiter",
                        "RateLimitRouteLimiter$Config");
    }

    /**
     * Of the auto-configuration, the gateway uses only its main package (the properties, what a refresh rebuilds); of
     * the engine, the limit definitions, the HTTP side the web stacks share and the runner of a call, each a named
     * package with a documented API; never {@code internal} or a feature package.
     */
    @Test
    void ofTheAutoConfigurationOnlyItsMainPackageAndOfTheEngineOnlyTheSharedApiIsUsed() {
        noClasses()
                .should()
                .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.github.ratelimit.autoconfigure..")
                        .and(JavaClass.Predicates.resideOutsideOfPackage("io.github.ratelimit.autoconfigure")))
                .check(GATEWAY);
        noClasses()
                .should()
                .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.github.ratelimit.spring..")
                        .and(JavaClass.Predicates.resideOutsideOfPackages(
                                "io.github.ratelimit.spring.definition",
                                "io.github.ratelimit.spring.web",
                                "io.github.ratelimit.spring.call")))
                .check(GATEWAY);
    }

    @Test
    void routesAreDecidedByTheDecisionFlowNotByRedis() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.redisson..", "io.github.ratelimit.redis..")
                .check(GATEWAY);
    }
}
