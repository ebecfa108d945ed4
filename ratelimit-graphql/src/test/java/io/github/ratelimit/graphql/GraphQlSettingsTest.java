package io.github.ratelimit.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.autoconfigure.RefreshPart;
import io.github.ratelimit.fixtures.DocsYaml;
import io.github.ratelimit.fixtures.SettingsMetadata;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.spring.definition.Plans;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;

/**
 * The module owns its settings, {@code ratelimit.graphql.*} ({@link RateLimitGraphQlProperties}): the YAML of
 * docs/graphql.md starts an application as printed (strictly bound: a key no settings class takes fails the start),
 * the IDE's metadata describes each setting, and a refresh reads the module's settings through its own part.
 */
class GraphQlSettingsTest {

    private static ConfigurableApplicationContext start(Map<String, Object> properties) {
        Map<String, Object> all = new LinkedHashMap<>(properties);
        all.put("spring.data.redis.url", SharedRedis.get().url());
        all.put("ratelimit.key-prefix", "graphql-" + UUID.randomUUID() + ":");
        return new SpringApplicationBuilder(GraphQlOperationLimitsTest.GraphQlApp.class)
                .web(WebApplicationType.NONE)
                .properties(all)
                .run();
    }

    @Test
    void theYamlOfTheDocsStartsAnApplicationAsPrinted() {
        Map<String, Object> documented = DocsYaml.firstBlock("graphql.md");
        assertThat(documented).containsEntry("ratelimit.graphql.rules[0].paths", "query/*");

        try (ConfigurableApplicationContext context = start(documented)) {
            assertThat(context.getBean(RateLimitGraphQlProperties.class).getRules())
                    .singleElement()
                    .satisfies(rule -> assertThat(rule.name()).isEqualTo("queries"));
            assertThat(context.getBean(GraphQlOperationLimits.class).declaredLimits())
                    .singleElement()
                    .satisfies(limit -> assertThat(limit.limit().limit()).isEqualTo(1000));
        }
    }

    /** A refresh compiles the interceptor the rules and cost the environment has then, through the module's part. */
    @Test
    void aRefreshReadsTheModulesOwnSettings() {
        try (ConfigurableApplicationContext context = start(Map.of(
                "ratelimit.graphql.rules[0].name", "queries",
                "ratelimit.graphql.rules[0].paths", "query/*",
                "ratelimit.graphql.rules[0].limits[0].limit", "10",
                "ratelimit.graphql.rules[0].limits[0].window", "1m"))) {
            GraphQlOperationLimits limits = context.getBean(GraphQlOperationLimits.class);
            Map<String, Object> changed = new LinkedHashMap<>();
            changed.put("ratelimit.graphql.rules[0].name", "queries");
            changed.put("ratelimit.graphql.rules[0].paths", "query/*");
            changed.put("ratelimit.graphql.rules[0].limits[0].limit", "3");
            changed.put("ratelimit.graphql.rules[0].limits[0].window", "1m");
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("refreshed", changed));

            RefreshPart<?> part = context.getBean("rateLimitGraphQlRefresh", RefreshPart.class);
            assertThat(part.limits()).isSameAs(limits);
            Runnable commit = part.prepare(new RefreshPart.Settings(Binder.get(context.getEnvironment())), Plans.NONE);
            assertThat(limits.declaredLimits().get(0).limit().limit())
                    .as("nothing in force before the commit")
                    .isEqualTo(10);
            commit.run();
            assertThat(limits.declaredLimits().get(0).limit().limit()).isEqualTo(3);
        }
    }

    /** The description of each setting in the metadata the configuration processor wrote for the IDE. */
    @Test
    void theIdesMetadataDescribesEverySetting() {
        assertThat(SettingsMetadata.description("ratelimit.graphql.rules")).contains("query/*", "mutation/Name");
        assertThat(SettingsMetadata.description("ratelimit.graphql.cost")).contains("#fields", "#depth");
    }
}
