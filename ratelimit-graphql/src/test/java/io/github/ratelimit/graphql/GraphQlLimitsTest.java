package io.github.ratelimit.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.fixtures.SharedRedis;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.greenbytes.http.sfv.Parser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.graphql.ExecutionGraphQlResponse;
import org.springframework.graphql.data.method.annotation.Argument;
import org.springframework.graphql.data.method.annotation.QueryMapping;
import org.springframework.graphql.data.method.annotation.support.AnnotatedControllerConfigurer;
import org.springframework.graphql.execution.DefaultExecutionGraphQlService;
import org.springframework.graphql.execution.GraphQlSource;
import org.springframework.graphql.support.DefaultExecutionGraphQlRequest;
import org.springframework.stereotype.Controller;

/**
 * {@code @RateLimited} on a {@code @QueryMapping} method, executed by Spring for GraphQL with the starter's
 * auto-configuration on a real Redis: a refused field is a GraphQL error of that field, with its classification, retry
 * advice and policy, and the operation's other fields still resolve.
 */
class GraphQlLimitsTest {

    static final String SCHEMA =
            """
            type Query { quote(symbol: String!): Quote, hello: String }
            type Quote { symbol: String, price: Float }
            """;

    record Quote(String symbol, double price) {}

    @Controller
    static class Quotes {

        @QueryMapping
        @RateLimited(name = "quote", limit = 2, windowMs = 60_000, key = "#symbol")
        Quote quote(@Argument String symbol) {
            return new Quote(symbol, 42.5);
        }

        @QueryMapping
        String hello() {
            return "hi";
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class GraphQlApp {
        @Bean
        Quotes quotes() {
            return new Quotes();
        }
    }

    ConfigurableApplicationContext context;
    DefaultExecutionGraphQlService graphQl;

    @BeforeEach
    void start() throws Exception {
        context = new SpringApplicationBuilder(GraphQlApp.class)
                .web(WebApplicationType.NONE)
                .properties(Map.of(
                        "spring.data.redis.url",
                        SharedRedis.get().url(),
                        "ratelimit.key-prefix",
                        "graphql-" + UUID.randomUUID() + ":"))
                .run();
        GraphQlSource source = schema(context, SCHEMA)
                // what Spring Boot's GraphQL auto-configuration does with the resolver beans
                .exceptionResolvers(List.of(context.getBean(GraphQlRefusals.class)))
                .build();
        graphQl = new DefaultExecutionGraphQlService(source);
    }

    /** A schema whose fields the application's annotated controllers fetch, as Spring Boot would build it. */
    static GraphQlSource.SchemaResourceBuilder schema(ConfigurableApplicationContext context, String schema)
            throws Exception {
        AnnotatedControllerConfigurer controllers = new AnnotatedControllerConfigurer();
        controllers.setApplicationContext(context);
        controllers.afterPropertiesSet();
        return GraphQlSource.schemaResourceBuilder()
                .schemaResources(new ByteArrayResource(schema.getBytes(StandardCharsets.UTF_8), "schema.graphqls"))
                .configureRuntimeWiring(controllers);
    }

    @AfterEach
    void stop() {
        context.close();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> extensionsOf(Map<String, Object> error) {
        return (Map<String, Object>) error.get("extensions");
    }

    Map<String, Object> execute(String document) {
        ExecutionGraphQlResponse response = graphQl.execute(new DefaultExecutionGraphQlRequest(
                        document, null, null, null, UUID.randomUUID().toString(), null))
                .block();
        assertThat(response).isNotNull();
        return response.toMap();
    }

    @Test
    @SuppressWarnings("unchecked")
    void aRefusedFieldIsAnErrorOfThatFieldAndTheOtherFieldsStillResolve() {
        String document = "{ quote(symbol: \"ACME\") { symbol price } hello }";
        for (int i = 0; i < 2; i++) {
            Map<String, Object> admitted = execute(document);
            assertThat(admitted).doesNotContainKey("errors");
            assertThat((Map<String, Object>) admitted.get("data"))
                    .containsEntry("quote", Map.of("symbol", "ACME", "price", 42.5))
                    .containsEntry("hello", "hi");
        }

        Map<String, Object> refused = execute(document);
        Map<String, Object> data = (Map<String, Object>) refused.get("data");
        assertThat(data).containsEntry("hello", "hi");
        assertThat(data.get("quote")).isNull();
        List<Map<String, Object>> errors = (List<Map<String, Object>>) refused.get("errors");
        assertThat(errors).hasSize(1);
        Map<String, Object> error = errors.get(0);
        assertThat(error.get("path")).isEqualTo(List.of("quote"));
        assertThat((String) error.get("message"))
                .contains("Rate limit exceeded")
                .contains("quote");
        Map<String, Object> extensions = (Map<String, Object>) error.get("extensions");
        assertThat(extensions).containsEntry("classification", "RATE_LIMITED");
        assertThat(((Number) extensions.get("retryAfter")).longValue()).isBetween(1L, 60L);
        var policy = Parser.parseList((String) extensions.get("policy"));
        assertThat(policy.get()).hasSize(1);
        assertThat(((Number) policy.get().get(0).getParams().get("q").get()).longValue())
                .isEqualTo(2L);

        assertThat(execute("{ quote(symbol: \"OTHER\") { symbol } }"))
                .as("another symbol has its own count")
                .doesNotContainKey("errors");
    }
}
