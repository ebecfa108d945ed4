package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The configuration metadata an IDE reads: every property described, rule fields and hints included. */
class ConfigurationMetadataTests {

    @SuppressWarnings("unchecked")
    static Map<String, Object> metadata() throws Exception {
        try (InputStream in =
                ConfigurationMetadataTests.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated metadata on the classpath").isNotNull();
            return JsonMapper.builder().build().readValue(in, Map.class);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> properties() throws Exception {
        Map<String, Map<String, Object>> byName = new java.util.HashMap<>();
        for (Map<String, Object> property :
                (List<Map<String, Object>>) metadata().get("properties")) {
            byName.put((String) property.get("name"), property);
        }
        return byName;
    }

    @Test
    void everyRatelimitPropertyHasADescription() throws Exception {
        properties().forEach((name, property) -> {
            if (name.startsWith("ratelimit.")) {
                assertThat((String) property.get("description")).as(name).isNotBlank();
            }
        });
    }

    /**
     * The facts a user needs in the IDE's help stay in the descriptions: these were once shortened away to meet a line
     * count, and must not be again. The modules' own settings are held by their tests ({@code ratelimit.grpc.rules} by
     * {@code GrpcLimitsTest}).
     */
    @Test
    void descriptionsKeepWhatTheSettingRisksOrPromises() throws Exception {
        Map<String, Map<String, Object>> properties = properties();
        Map<String, String> facts = Map.of(
                "ratelimit.enabled", "switching them off would make tokens reusable and",
                "ratelimit.store", "for one instance, local",
                "ratelimit.durability.tokens", "could make a used token work again",
                "ratelimit.durability.locks", "could grant the lock twice",
                "ratelimit.durability.replica-wait", "(so none under a 2 ms timeout)",
                "ratelimit.local-refusals.enabled", "Never refuses a call Redis would admit",
                "ratelimit.local-limits.instances", "keeps the last count it saw",
                "ratelimit.headers.all-policies", "else the one with the least remaining");
        facts.forEach((name, fact) -> assertThat((String) properties.get(name).get("description"))
                .as(name)
                .isNotNull()
                .contains(fact));
    }

    @Test
    void ruleFieldsAreDescribedWithTheirDefaults() throws Exception {
        Map<String, Map<String, Object>> properties = properties();
        for (String field : List.of(
                "name",
                "paths",
                "methods",
                "limits[].limit",
                "limits[].window",
                "limits[].algorithm",
                "key",
                "missing-key",
                "cost",
                "order",
                "shadow",
                "per-path",
                "failure-mode",
                "plans",
                "plan")) {
            assertThat(properties).containsKey("ratelimit.filter.rules[]." + field);
        }
        assertThat(properties.get("ratelimit.filter.rules[].key")).containsEntry("defaultValue", "client");
        assertThat(properties.get("ratelimit.filter.rules[].missing-key")).containsEntry("defaultValue", "reject");
        assertThat(properties.get("ratelimit.filter.rules[].limits[].algorithm"))
                .containsEntry("defaultValue", "sliding-window");
        assertThat(properties.get("ratelimit.redis.timeout")).containsEntry("defaultValue", "200ms");
        assertThat(properties)
                .containsKeys(
                        "ratelimit.redis.connect-timeout",
                        "ratelimit.redis.require-at-startup",
                        "ratelimit.plans.groups",
                        "ratelimit.plans.customers",
                        "management.health.ratelimit.enabled");
    }

    @Test
    @SuppressWarnings("unchecked")
    void keyKindsAlgorithmsAndMissingKeyHaveHints() throws Exception {
        Map<String, List<String>> hints = new java.util.HashMap<>();
        for (Map<String, Object> hint : (List<Map<String, Object>>) metadata().get("hints")) {
            hints.put(
                    (String) hint.get("name"),
                    ((List<Map<String, Object>>) hint.get("values"))
                            .stream().map(v -> String.valueOf(v.get("value"))).toList());
        }
        assertThat(hints.get("ratelimit.filter.rules[].key"))
                .containsExactly("ip", "principal", "client", "header:", "spel:");
        assertThat(hints.get("ratelimit.filter.rules[].limits[].algorithm"))
                .containsExactly("sliding-window", "fixed-window", "token-bucket");
        assertThat(hints.get("ratelimit.filter.rules[].missing-key")).containsExactly("reject", "ip");
    }
}
