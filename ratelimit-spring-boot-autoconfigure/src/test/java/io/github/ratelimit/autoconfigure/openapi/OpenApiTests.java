package io.github.ratelimit.autoconfigure.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.github.ratelimit.annotation.ConcurrencyLimited;
import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.spring.openapi.RateLimitOpenApi;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springdoc.core.configuration.SpringDocConfiguration;
import org.springdoc.core.properties.SpringDocConfigProperties;
import org.springdoc.webmvc.core.configuration.SpringDocWebMvcConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The OpenAPI description springdoc serves says what the starter can answer: each operation's 429 with its headers
 * and problem, the token and lock answers, the 503 where nothing decides in Redis's place, and the limits in
 * {@code x-ratelimit}, for annotations and path rules alike; operations without any are left as springdoc made them,
 * and so are answers the application declares itself.
 */
class OpenApiTests {

    @RestController
    static class Api {
        @GetMapping("/search")
        @RateLimited(name = "search", limit = 10, windowMs = 1000, key = "ip")
        @RateLimited(name = "search", limit = 120, windowMs = 60_000, key = "#userId")
        String search(@RequestHeader("X-User-Id") String userId) {
            return "found";
        }

        @GetMapping("/strict")
        @RateLimited(name = "strict", limit = 5, windowMs = 1000, failureMode = FailureMode.CLOSED)
        String strict() {
            return "ok";
        }

        @GetMapping("/shadowed")
        @RateLimited(name = "shadowed", limit = 5, windowMs = 1000, shadow = true)
        String shadowed() {
            return "ok";
        }

        @GetMapping("/quote")
        @RateLimited(name = "quote", limit = 2, windowMs = 10_000, fallback = "cached")
        String quote() {
            return "fresh";
        }

        String cached() {
            return "cached";
        }

        @GetMapping("/declared")
        @RateLimited(name = "declared", limit = 5, windowMs = 1000)
        @ApiResponse(responseCode = "429", description = "the application's own words")
        String declared() {
            return "ok";
        }

        @PostMapping("/spawn")
        @SingleUse(purpose = "spawn", token = "#token")
        String spawn(@RequestHeader("X-Token") String token, TokenConsumption consumption) {
            return "spawned";
        }

        @PostMapping("/workers/{id}")
        @Locked(name = "worker", key = "#id", leaseMs = 5000)
        String work(@PathVariable String id, LockHandle lock) {
            return "done";
        }

        @GetMapping("/slow")
        @ConcurrencyLimited(name = "slow", max = 2)
        String slow() {
            return "slow";
        }

        @GetMapping("/public/items/{id}")
        String item(@PathVariable String id) {
            return "item";
        }

        @PostMapping("/public/items/{id}")
        String update(@PathVariable String id) {
            return "updated";
        }

        @GetMapping("/public/health")
        String health() {
            return "up";
        }

        @GetMapping("/free")
        String free() {
            return "free";
        }
    }

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    JacksonAutoConfiguration.class,
                    HttpMessageConvertersAutoConfiguration.class,
                    WebMvcAutoConfiguration.class,
                    SpringDocConfiguration.class,
                    SpringDocConfigProperties.class,
                    SpringDocWebMvcConfiguration.class,
                    RateLimitRedissonAutoConfiguration.class,
                    RateLimitRedisAutoConfiguration.class,
                    RateLimitAutoConfiguration.class,
                    io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                    RateLimitWebAutoConfiguration.class,
                    RateLimitOpenApiAutoConfiguration.class))
            .withBean(Api.class)
            .withPropertyValues(
                    "spring.data.redis.url=" + SharedRedis.get().url(),
                    "ratelimit.key-prefix=openapi-" + UUID.randomUUID() + ":",
                    "ratelimit.filter.rules[0].name=public",
                    "ratelimit.filter.rules[0].paths=/public/**",
                    "ratelimit.filter.rules[0].methods=GET",
                    "ratelimit.filter.rules[0].limits[0].limit=20",
                    "ratelimit.filter.rules[0].limits[0].window=1m",
                    "ratelimit.filter.rules[0].key=header:X-Api-Key",
                    "ratelimit.filter.exclude=/public/health");

    static DocumentContext apiDocs(ApplicationContext context) throws Exception {
        MockMvc mvc = MockMvcBuilders.webAppContextSetup(
                        (org.springframework.web.context.WebApplicationContext) context)
                .build();
        String json = mvc.perform(MockMvcRequestBuilders.get("/v3/api-docs"))
                .andReturn()
                .getResponse()
                .getContentAsString();
        return JsonPath.parse(json);
    }

    static Map<String, Object> responses(DocumentContext doc, String path, String method) {
        return doc.read("$.paths['" + path + "']." + method + ".responses");
    }

    @Test
    void aRateLimitedOperationDocumentsIts429WithHeadersProblemAndLimits() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            DocumentContext doc = apiDocs(context);

            Map<String, Object> responses = responses(doc, "/search", "get");
            assertThat(responses).containsKeys("200", "429").doesNotContainKey("503");
            assertThat(doc.<Map<String, Object>>read("$.paths['/search'].get.responses['429'].headers"))
                    .containsOnlyKeys("Retry-After", "RateLimit-Policy", "RateLimit");
            assertThat(doc.<String>read(
                            "$.paths['/search'].get.responses['429'].content['application/problem+json'].schema.$ref"))
                    .isEqualTo("#/components/schemas/RateLimitQuotaProblem");
            assertThat(doc.<Map<String, Object>>read("$.paths['/search'].get.responses['200'].headers"))
                    .as("an admitted call carries the RateLimit fields too")
                    .containsKeys("RateLimit-Policy", "RateLimit");
            assertThat(doc.<Map<String, Object>>read("$.components.schemas.RateLimitQuotaProblem.properties"))
                    .containsKeys("type", "title", "status", "detail", "instance", "violated-policies");

            List<Map<String, Object>> limits = doc.read("$.paths['/search'].get.x-ratelimit");
            assertThat(limits).hasSize(2);
            assertThat(limits.get(0))
                    .containsEntry("name", "search")
                    .containsEntry("limit", 10)
                    .containsEntry("window", "PT1S")
                    .containsEntry("algorithm", "sliding-window")
                    .containsEntry("keys", List.of("ip"))
                    .containsEntry("source", "annotation");
            assertThat(limits.get(1))
                    .containsEntry("limit", 120)
                    .containsEntry("window", "PT1M")
                    .as("a key expression is code: only its kind is shown")
                    .containsEntry("keys", List.of("expression"));
            assertThat(doc.<String>read("$.paths['/search'].get.description"))
                    .isEqualTo("Rate limited: 10 per second per ip; 120 per minute per expression.");
            assertThat(doc.jsonString()).doesNotContain("#userId");
        });
    }

    @Test
    void a503WhereNothingDecidesInRedisPlaceAndNo429ForAShadowLimit() {
        runner.run(context -> {
            DocumentContext doc = apiDocs(context);
            assertThat(responses(doc, "/strict", "get")).containsKeys("429", "503");
            assertThat(doc.<Map<String, Object>>read("$.paths['/strict'].get.responses['503'].headers"))
                    .containsOnlyKeys("Retry-After");

            assertThat(responses(doc, "/shadowed", "get")).doesNotContainKeys("429", "503");
            assertThat(doc.<List<Map<String, Object>>>read("$.paths['/shadowed'].get.x-ratelimit"))
                    .singleElement()
                    .satisfies(limit -> assertThat(limit).containsEntry("shadow", true));
        });
    }

    @Test
    void aFallbackAnswersInsteadOfThe429() {
        runner.run(context -> {
            DocumentContext doc = apiDocs(context);
            assertThat(responses(doc, "/quote", "get")).doesNotContainKey("429");
            assertThat(doc.<List<Map<String, Object>>>read("$.paths['/quote'].get.x-ratelimit"))
                    .singleElement()
                    .satisfies(limit -> assertThat(limit).containsEntry("fallback", true));
        });
    }

    @Test
    void theApplicationsOwnAnswerIsKept() {
        runner.run(context -> {
            DocumentContext doc = apiDocs(context);
            assertThat(doc.<String>read("$.paths['/declared'].get.responses['429'].description"))
                    .isEqualTo("the application's own words");
        });
    }

    @Test
    void tokensLocksAndConcurrencyLimits() {
        runner.run(context -> {
            DocumentContext doc = apiDocs(context);
            assertThat(responses(doc, "/spawn", "post")).containsKeys("200", "400", "404", "409", "503");
            assertThat(doc.<String>read(
                            "$.paths['/spawn'].post.responses['409'].content['application/problem+json'].schema.$ref"))
                    .isEqualTo("#/components/schemas/RateLimitProblem");
            assertThat(doc.<Map<String, Object>>read("$.paths['/spawn'].post")).doesNotContainKey("x-ratelimit");

            assertThat(responses(doc, "/workers/{id}", "post")).containsKeys("409", "503");
            assertThat(doc.<Map<String, Object>>read("$.paths['/workers/{id}'].post.responses['409'].headers"))
                    .containsOnlyKeys("Retry-After");

            assertThat(doc.<List<String>>read("$.paths['/workers/{id}'].post.parameters[*].name"))
                    .as("the LockHandle comes from the starter, not from the client")
                    .containsExactly("id");
            assertThat(doc.<List<String>>read("$.paths['/spawn'].post.parameters[*].name"))
                    .containsExactly("X-Token");
            assertThat(doc.jsonString()).doesNotContain("LockHandle", "TokenConsumption");

            assertThat(responses(doc, "/slow", "get")).containsKeys("429", "503");
            assertThat(doc.<List<Map<String, Object>>>read("$.paths['/slow'].get.x-ratelimit"))
                    .singleElement()
                    .satisfies(limit -> assertThat(limit)
                            .containsEntry("name", "slow")
                            .containsEntry("concurrent", 2)
                            .containsEntry("keys", List.of("client")));
            assertThat(doc.<Map<String, Object>>read("$.components.schemas.RateLimitProblem.properties"))
                    .containsKeys("type", "title", "status", "detail", "instance", "purpose");
        });
    }

    @Test
    void pathRulesApplyByMethodAndPatternAndNotToExcludedPaths() {
        runner.run(context -> {
            DocumentContext doc = apiDocs(context);
            assertThat(responses(doc, "/public/items/{id}", "get")).containsKeys("200", "429");
            assertThat(doc.<List<Map<String, Object>>>read("$.paths['/public/items/{id}'].get.x-ratelimit"))
                    .singleElement()
                    .satisfies(limit -> assertThat(limit)
                            .containsEntry("name", "public")
                            .containsEntry("limit", 20)
                            .containsEntry("window", "PT1M")
                            .containsEntry("keys", List.of("header:x-api-key"))
                            .containsEntry("source", "path-rule"));
            assertThat(responses(doc, "/public/items/{id}", "post"))
                    .as("the rule counts GETs only")
                    .doesNotContainKey("429");
            assertThat(responses(doc, "/public/health", "get")).as("excluded").doesNotContainKey("429");
            assertThat(responses(doc, "/free", "get")).containsOnlyKeys("200");
            assertThat(doc.<Map<String, Object>>read("$.paths['/free'].get")).doesNotContainKey("x-ratelimit");
        });
    }

    @Test
    void withRateLimitsOffTokensAndLocksAreStillDescribed() {
        runner.withPropertyValues("ratelimit.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            DocumentContext doc = apiDocs(context);
            assertThat(responses(doc, "/search", "get")).containsOnlyKeys("200");
            assertThat(responses(doc, "/spawn", "post")).containsKeys("400", "404", "409", "503");
            assertThat(responses(doc, "/workers/{id}", "post")).containsKeys("409", "503");
        });
    }

    @Test
    void switchedOffTheDescriptionIsSpringdocsOwn() {
        runner.withPropertyValues("ratelimit.openapi.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(RateLimitOpenApi.class);
            DocumentContext doc = apiDocs(context);
            assertThat(responses(doc, "/search", "get")).containsOnlyKeys("200");
            assertThat(doc.jsonString()).doesNotContain("x-ratelimit", "RateLimitQuotaProblem");
        });
    }

    @Test
    void withoutSpringdocNothingIsAdded() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitOpenApiAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=" + SharedRedis.get().url())
                .withClassLoader(new FilteredClassLoader("org.springdoc"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RateLimitOpenApi.class);
                });
    }
}
