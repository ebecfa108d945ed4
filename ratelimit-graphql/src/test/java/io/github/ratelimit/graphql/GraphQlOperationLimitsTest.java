package io.github.ratelimit.graphql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import io.github.ratelimit.test.support.RateLimitFields;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.graphql.data.method.annotation.QueryMapping;
import org.springframework.graphql.execution.DefaultExecutionGraphQlService;
import org.springframework.graphql.execution.GraphQlSource;
import org.springframework.graphql.server.WebGraphQlHandler;
import org.springframework.graphql.server.WebGraphQlRequest;
import org.springframework.graphql.server.WebGraphQlResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Controller;
import org.springframework.util.LinkedMultiValueMap;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code ratelimit.graphql.rules} with the starter's auto-configuration on a real Redis, through Spring for GraphQL's
 * web handler: each operation costs its fields, decided before it runs; a refused operation is one error without data,
 * with the refusal's HTTP fields; another caller has its own count.
 */
class GraphQlOperationLimitsTest {

    static final String SCHEMA = "type Query { hello: String }";

    @Controller
    static class Hello {
        @QueryMapping
        String hello() {
            return "hi";
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class GraphQlApp {
        @Bean
        Hello hello() {
            return new Hello();
        }
    }

    ConfigurableApplicationContext context;
    WebGraphQlHandler handler;

    @BeforeEach
    void start() throws Exception {
        context = new SpringApplicationBuilder(GraphQlApp.class)
                .web(WebApplicationType.NONE)
                .run(
                        "--spring.data.redis.url=" + SharedRedis.get().url(),
                        "--ratelimit.key-prefix=graphql-" + UUID.randomUUID() + ":",
                        "--ratelimit.graphql.rules[0].name=queries",
                        "--ratelimit.graphql.rules[0].paths=query/*",
                        "--ratelimit.graphql.rules[0].key=header:x-user-id",
                        "--ratelimit.graphql.rules[0].limits[0].limit=10",
                        "--ratelimit.graphql.rules[0].limits[0].window=1m");
        GraphQlSource source = GraphQlLimitsTest.schema(context, SCHEMA).build();
        // what Spring Boot's GraphQL auto-configuration does with the interceptor beans
        handler = WebGraphQlHandler.builder(new DefaultExecutionGraphQlService(source))
                .interceptor(context.getBean(GraphQlOperationLimits.class))
                .build();
    }

    @AfterEach
    void stop() {
        context.close();
    }

    WebGraphQlResponse execute(String document, String user) {
        return execute(document, user, false);
    }

    /** @param nonBlocking on a thread that must not block (WebFlux's), where the rules are decided without blocking */
    WebGraphQlResponse execute(String document, String user, boolean nonBlocking) {
        HttpHeaders headers = new HttpHeaders();
        if (user != null) {
            headers.set("X-User-Id", user);
        }
        WebGraphQlResponse response = Mono.defer(() -> handler.handleRequest(new WebGraphQlRequest(
                        URI.create("http://localhost/graphql"),
                        headers,
                        new LinkedMultiValueMap<>(),
                        new InetSocketAddress("127.0.0.1", 4000),
                        Map.of(),
                        Map.of("query", document),
                        UUID.randomUUID().toString(),
                        Locale.ROOT)))
                .subscribeOn(nonBlocking ? Schedulers.parallel() : Schedulers.immediate())
                .block();
        assertThat(response).isNotNull();
        return response;
    }

    @Test
    @SuppressWarnings("unchecked")
    void anOperationCostsItsFieldsAndARefusedOneIsOneErrorWithoutData() {
        String threeFields = "query Greeting { hello h2: hello h3: hello }";
        for (long left : new long[] {7, 4, 1}) {
            WebGraphQlResponse admitted = execute(threeFields, "alice");
            assertThat(admitted.getErrors()).isEmpty();
            assertThat((Map<String, Object>) admitted.getData()).containsEntry("hello", "hi");
            RateLimitFields fields = RateLimitFields.parse(
                    admitted.getResponseHeaders().getFirst("RateLimit-Policy"),
                    admitted.getResponseHeaders().getFirst("RateLimit"));
            assertThat(fields.states().values())
                    .as("three fields taken by each operation")
                    .singleElement()
                    .satisfies(state -> assertThat(state).containsEntry("r", left));
        }

        WebGraphQlResponse refused = execute(threeFields, "alice"); // 9 of 10 taken: 3 more do not fit
        assertThat(refused.isValid()).as("no data: the operation did not run").isFalse();
        assertThat(refused.getErrors()).singleElement().satisfies(error -> {
            assertThat(error.getMessage()).contains("Rate limit exceeded").contains("queries");
            assertThat(((Number) error.getExtensions().get("retryAfter")).longValue())
                    .isBetween(1L, 60L);
        });
        assertThat(classification(refused)).isEqualTo("RATE_LIMITED");
        assertThat(Long.parseLong(refused.getResponseHeaders().getFirst("Retry-After")))
                .isBetween(1L, 60L);
        RateLimitFields fields = RateLimitFields.parse(
                refused.getResponseHeaders().getFirst("RateLimit-Policy"),
                refused.getResponseHeaders().getFirst("RateLimit"));
        assertThat(fields.policies().values())
                .singleElement()
                .satisfies(policy -> assertThat(policy).containsEntry("q", 10L).containsEntry("w", 60L));

        assertThat(execute("{ hello }", "alice").getErrors())
                .as("one field still fits: the refused operation took nothing")
                .isEmpty();
        assertThat(execute(threeFields, "bob").getErrors())
                .as("another caller's own count")
                .isEmpty();
    }

    /** The first error's classification, as the response is written (graphql-java puts it in its extensions). */
    @SuppressWarnings("unchecked")
    static Object classification(WebGraphQlResponse response) {
        var errors = (java.util.List<Map<String, Object>>) response.toMap().get("errors");
        return ((Map<String, Object>) errors.get(0).get("extensions")).get("classification");
    }

    @Test
    void onAThreadThatMustNotBlockTheRulesAreDecidedWithoutBlocking() {
        String sixFields = "{ hello a: hello b: hello c: hello d: hello e: hello }";
        WebGraphQlResponse admitted = execute(sixFields, "carol", true);
        assertThat(admitted.getErrors()).isEmpty();
        assertThat(admitted.getResponseHeaders().getFirst("RateLimit")).isNotNull();
        WebGraphQlResponse refused = execute(sixFields, "carol", true); // 6 of 10 taken: 6 more do not fit
        assertThat(refused.isValid()).isFalse();
        assertThat(classification(refused)).isEqualTo("RATE_LIMITED");
    }

    @Test
    void theCostIsASpelExpressionOverTheOperationCheckedAtStart() {
        var operation = GraphQlOperationLimits.Operation.of("mutation M { a { b { c } } d }", null);
        assertThat(operation.depth()).isEqualTo(3);
        assertThat(GraphQlOperationLimits.costOf("#fields").applyAsLong(operation))
                .isEqualTo(4);
        assertThat(GraphQlOperationLimits.costOf("#fields + 10 * #depth").applyAsLong(operation))
                .isEqualTo(34);
        assertThat(GraphQlOperationLimits.costOf("#type == 'mutation' ? 5 * #fields : #fields")
                        .applyAsLong(operation))
                .isEqualTo(20);
        for (String bad : List.of("#fields +", "'many'", "-#fields", "T(java.lang.Runtime).getRuntime()")) {
            assertThatThrownBy(() -> GraphQlOperationLimits.costOf(bad))
                    .as(bad)
                    .isInstanceOf(InvalidFilterRuleException.class)
                    .hasMessageContaining("ratelimit.graphql.cost");
        }
    }

    @Test
    void anOperationWithoutTheKeyIsABadRequest() {
        WebGraphQlResponse refused = execute("{ hello }", null);
        assertThat(refused.isValid()).isFalse();
        assertThat(refused.getErrors()).hasSize(1);
        assertThat(classification(refused)).isEqualTo("BAD_REQUEST");
    }

    @Test
    void fieldsAreCountedThroughFragmentsAndOperationsAreNamedByTypeAndName() {
        assertThat(GraphQlOperationLimits.Operation.of("{ hello }", null))
                .isEqualTo(new GraphQlOperationLimits.Operation("query", "anonymous", 1, 1));
        assertThat(GraphQlOperationLimits.Operation.of("query Q { a { b c { d } } }", null)
                        .fields())
                .isEqualTo(4);
        assertThat(GraphQlOperationLimits.Operation.of(
                        "query Q { ...F ... on Query { e } } fragment F on Query { a { b } }", null))
                .isEqualTo(new GraphQlOperationLimits.Operation("query", "Q", 3, 2));
        assertThat(GraphQlOperationLimits.Operation.of("fragment F on Query { ...F a } query { ...F }", null)
                        .fields())
                .as("a fragment spread within itself counts once")
                .isEqualTo(1);
        assertThat(GraphQlOperationLimits.Operation.of("query A { a } mutation B { b c }", "B"))
                .isEqualTo(new GraphQlOperationLimits.Operation("mutation", "B", 2, 1));
        assertThat(GraphQlOperationLimits.Operation.of("query A { a } query B { b }", null))
                .as("which operation is ambiguous")
                .isEqualTo(GraphQlOperationLimits.Operation.UNREADABLE);
        assertThat(GraphQlOperationLimits.Operation.of("{ hello", null))
                .isEqualTo(GraphQlOperationLimits.Operation.UNREADABLE);
    }
}
