package io.github.ratelimit.grpc;

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
 * The gRPC module's public API, pinned as the other modules' are: what applications name, nothing more; and it decides
 * through the starter's decision flow and the runner, never through Redis itself.
 */
class GrpcArchitectureTest {

    static final JavaClasses GRPC = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.github.ratelimit.grpc");

    @Test
    void thePublicApiIsItsList() {
        Set<String> actual = new TreeSet<>();
        for (JavaClass type : GRPC) {
            if (type.getModifiers().contains(JavaModifier.PUBLIC)) {
                actual.add(type.getName().substring("io.github.ratelimit.grpc.".length()));
            }
        }
        assertThat(actual)
                .containsExactly(
                        "GrpcRefusals",
                        "RateLimitClientInterceptor",
                        "RateLimitGrpcAutoConfiguration",
                        "RateLimitGrpcProperties",
                        "RateLimitServerInterceptor");
    }

    /**
     * Of the auto-configuration, the gRPC module uses only its main package (the properties, what a refresh rebuilds); of
     * the engine, the limit definitions, the HTTP side the web stacks share, the runner of a call and the outbound
     * rules, each a named package with a documented API; never {@code internal} or a feature package.
     */
    @Test
    void ofTheAutoConfigurationOnlyItsMainPackageAndOfTheEngineOnlyTheSharedApiIsUsed() {
        noClasses()
                .should()
                .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.github.ratelimit.autoconfigure..")
                        .and(JavaClass.Predicates.resideOutsideOfPackage("io.github.ratelimit.autoconfigure")))
                .check(GRPC);
        noClasses()
                .should()
                .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.github.ratelimit.spring..")
                        .and(JavaClass.Predicates.resideOutsideOfPackages(
                                "io.github.ratelimit.spring.definition",
                                "io.github.ratelimit.spring.web",
                                "io.github.ratelimit.spring.call",
                                "io.github.ratelimit.spring.client")))
                .check(GRPC);
    }

    @Test
    void callsAreDecidedByTheDecisionFlowNotByRedis() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.redisson..", "io.github.ratelimit.redis..")
                .check(GRPC);
    }
}
