package io.github.ratelimit.sample.protocols;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.ratelimit.test.kit.Poll;
import io.github.ratelimit.test.support.RateLimitFields;
import io.github.ratelimit.test.support.RedisProcess;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.grpc.server.lifecycle.GrpcServerStartedEvent;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The protocols sample as two instances would run it: one Redis, one Kafka broker (the first instance's embedded one),
 * each with its own HTTP and gRPC ports. The gRPC method, the GraphQL field and the Kafka listener hold their limits
 * across both, exactly; the listener processes every order once; nothing is logged at ERROR, also while Redis is
 * stopped.
 */
class ProtocolsContractTest {

    static RedisProcess redis;
    static Instance first;
    static Instance second;
    static ListAppender<ILoggingEvent> logged;
    static final HttpClient http = HttpClient.newHttpClient();
    static final JsonMapper json = JsonMapper.builder().build();

    record Instance(ConfigurableApplicationContext context, int grpcPort, ManagedChannel channel) {

        int httpPort() {
            return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
        }
    }

    @BeforeAll
    static void start() {
        logged = new ListAppender<>();
        logged.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logged);
        redis = RedisProcess.start();
        first = instance(Map.of());
        String broker = first.context().getEnvironment().getProperty("spring.kafka.bootstrap-servers");
        assertThat(broker).as("the first instance's embedded broker").isNotBlank();
        second = instance(Map.of("spring.kafka.bootstrap-servers", broker));
    }

    static Instance instance(Map<String, Object> more) {
        AtomicInteger grpcPort = new AtomicInteger();
        Map<String, Object> properties = new java.util.HashMap<>(Map.of(
                "spring.data.redis.url", redis.url(),
                "server.port", "0",
                "spring.grpc.server.port", "0"));
        properties.putAll(more);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(ProtocolsApplication.class)
                .listeners((ApplicationListener<GrpcServerStartedEvent>) started -> grpcPort.set(started.getPort()))
                .run(properties.entrySet().stream()
                        .map(property -> "--" + property.getKey() + "=" + property.getValue())
                        .toArray(String[]::new)); // arguments: above application.yml, as an operator's would be
        assertThat(grpcPort.get()).as("the gRPC server's port").isPositive();
        ManagedChannel channel = ManagedChannelBuilder.forAddress("localhost", grpcPort.get())
                .usePlaintext()
                .build();
        return new Instance(context, grpcPort.get(), channel);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        for (Instance instance : new Instance[] {second, first}) {
            if (instance != null) {
                instance.channel().shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                instance.context().close();
            }
        }
        if (redis != null) {
            redis.close();
        }
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logged);
    }

    @Test
    void greeterAdmitsFiveASecondPerUserAcrossBothInstancesAndAnswersTheRestWithPushback() {
        List<Status.Code> codes = new ArrayList<>();
        StatusRuntimeException refused = null;
        for (int i = 0; i < 8; i++) {
            Instance instance = i % 2 == 0 ? first : second;
            try {
                assertThat(hello(instance, "grpc-user")).isEqualTo("Hello, call");
                codes.add(Status.Code.OK);
            } catch (StatusRuntimeException e) {
                codes.add(e.getStatus().getCode());
                refused = e;
            }
        }
        // a second passes only on a machine stalled that long: then the window has room again and more are admitted
        assertThat(codes.stream().filter(Status.Code.OK::equals).count())
                .as("calls admitted of 8 in a row, on two instances: %s", codes)
                .isEqualTo(5);
        assertThat(codes).containsOnly(Status.Code.OK, Status.Code.RESOURCE_EXHAUSTED);
        assertThat(refused).isNotNull();
        assertThat(refused.getStatus().getDescription()).contains("greeter");
        Metadata trailers = refused.getTrailers();
        assertThat(Long.parseLong(trailers.get(GreeterClient.PUSHBACK))).isBetween(1L, 1_000L);
        RateLimitFields fields = RateLimitFields.parse(
                trailers.get(Metadata.Key.of("ratelimit-policy", Metadata.ASCII_STRING_MARSHALLER)),
                trailers.get(GreeterClient.RATELIMIT));
        assertThat(fields.policies().values())
                .singleElement()
                .satisfies(policy -> assertThat(policy).containsEntry("q", 5L).containsEntry("w", 1L));
        assertThat(fields.states().values()).singleElement().satisfies(state -> assertThat(state)
                .containsEntry("r", 0L));

        assertThat(hello(first, "another-grpc-user"))
                .as("another user's own limit")
                .isEqualTo("Hello, call");
    }

    static String hello(Instance instance, String user) {
        return GreeterClient.call(instance.channel(), user, "call", 30);
    }

    /**
     * 8 quotes in a row, alternating instances, for one user of a 5-a-second field: 5 answered, the rest refused as
     * GraphQL errors. The burst must fit in one second, which a busy machine may not give it: tried up to five times,
     * a fresh user each, skipped (not failed) when none fit.
     */
    @Test
    void quoteAdmitsFiveASecondPerUserAcrossBothInstancesAndRefusesTheFieldAsAGraphQlError() throws Exception {
        int answered = 0;
        JsonNode refusal = null;
        long elapsedMs = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 5 && elapsedMs >= 900; attempt++) {
            String user = "graphql-user-" + attempt;
            answered = 0;
            refusal = null;
            long started = System.nanoTime();
            for (int i = 0; i < 8; i++) {
                JsonNode body = quote(i % 2 == 0 ? first : second, user);
                if (body.path("data").path("quote").isObject()) {
                    assertThat(body.path("data").path("quote").path("symbol").asString())
                            .isEqualTo("ACME");
                    answered++;
                } else {
                    refusal = body;
                }
            }
            elapsedMs = (System.nanoTime() - started) / 1_000_000;
        }
        assumeTrue(elapsedMs < 900, "8 quotes within one second, in five tries (the last took " + elapsedMs + " ms)");
        assertThat(answered)
                .as("quotes answered of 8 in a row, on two instances")
                .isEqualTo(5);
        assertThat(refusal).isNotNull();
        JsonNode error = refusal.path("errors").get(0);
        assertThat(error.path("path").get(0).asString()).isEqualTo("quote");
        assertThat(error.path("message").asString()).contains("quote");
        assertThat(error.path("extensions").path("classification").asString()).isEqualTo("RATE_LIMITED");
        assertThat(error.path("extensions").path("retryAfter").asLong()).isBetween(1L, 1L);
        assertThat(quote(second, "another-graphql-user")
                        .path("data")
                        .path("quote")
                        .isObject())
                .as("another user's own limit")
                .isTrue();
    }

    @Test
    void anOperationCostsItsFieldsAndARefusedOneIsAnsweredAsItsMediaTypeAsks() throws Exception {
        StringBuilder thirty = new StringBuilder("{");
        for (int i = 0; i < 30; i++) {
            thirty.append(" f").append(i).append(": __typename");
        }
        String document = thirty.append(" }").toString();
        for (Instance instance : List.of(first, second)) { // 60 fields of 60 a minute, on both instances
            HttpResponse<String> admitted =
                    graphQl(instance, "fields-user", document, "application/graphql-response+json");
            assertThat(admitted.statusCode()).isEqualTo(200);
            assertThat(json.readTree(admitted.body()).path("data").path("f29").asString())
                    .isEqualTo("Query");
        }
        HttpResponse<String> refused = graphQl(first, "fields-user", document, "application/graphql-response+json");
        assertThat(refused.statusCode())
                .as("a request error under application/graphql-response+json")
                .isEqualTo(400);
        JsonNode body = json.readTree(refused.body());
        assertThat(body.has("data")).as("the operation did not run").isFalse();
        assertThat(body.path("errors")
                        .get(0)
                        .path("extensions")
                        .path("classification")
                        .asString())
                .isEqualTo("RATE_LIMITED");
        assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow()))
                .isBetween(1L, 60L);
        HttpResponse<String> asJson = graphQl(second, "fields-user", "{ __typename }", "application/json");
        assertThat(asJson.statusCode())
                .as("the same refusal under application/json")
                .isEqualTo(200);
        assertThat(json.readTree(asJson.body())
                        .path("errors")
                        .get(0)
                        .path("extensions")
                        .path("classification")
                        .asString())
                .isEqualTo("RATE_LIMITED");
    }

    static HttpResponse<String> graphQl(Instance instance, String user, String document, String accept)
            throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + instance.httpPort() + "/graphql"))
                        .header("Content-Type", "application/json")
                        .header("Accept", accept)
                        .header("X-User-Id", user)
                        .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(Map.of("query", document))))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode quote(Instance instance, String user) throws Exception {
        HttpResponse<String> response =
                graphQl(instance, user, "{ quote(symbol: \"ACME\") { symbol price } }", "application/json");
        assertThat(response.statusCode()).isEqualTo(200);
        return json.readTree(response.body());
    }

    @Test
    void ordersAreProcessedExactlyOnceByBothInstancesAtMostTwentyASecondAlsoWhileRedisIsStopped() throws Exception {
        long startedAt = System.nanoTime();
        JsonNode before = processed();
        post(first, "/api/orders?count=200");
        Poll.until(
                "200 orders processed",
                Duration.ofSeconds(120),
                () -> processed().path("processed").asLong()
                        == before.path("processed").asLong() + 200);
        Duration took = Duration.ofNanos(System.nanoTime() - startedAt);
        JsonNode after = processed();
        assertThat(after.path("duplicates").asLong())
                .as("orders processed twice")
                .isZero();
        assertThat(took).as("200 orders at 20 a second").isGreaterThanOrEqualTo(Duration.ofSeconds(9));
        List<Long> perSecond = new ArrayList<>();
        after.path("perSecond").forEach(n -> perSecond.add(n.asLong()));
        assertThat(perSecond).as("admissions per second").allSatisfy(n -> assertThat(n)
                .isLessThanOrEqualTo(20));
        Poll.until(
                "every admission written",
                Duration.ofSeconds(10),
                () -> sum(processed().path("perSecond")) == 200);
        for (Instance instance : List.of(first, second)) {
            assertThat(instance.context()
                            .getBean(KafkaListenerEndpointRegistry.class)
                            .getListenerContainer("orders")
                            .getAssignedPartitions())
                    .as("each instance consumes a partition")
                    .hasSize(1);
        }

        // Redis stopped (SIGSTOP) for 10 s while 200 more are processed: each instance decides its share in memory,
        // and keeps its counts until Redis answers again
        post(first, "/api/orders?count=200");
        Poll.until(
                "some of the next orders processed",
                Duration.ofSeconds(30),
                () -> processed().path("processed").asLong() > 210);
        redis.freeze();
        try {
            Thread.sleep(10_000); // the outage itself, not a wait for a state
        } finally {
            redis.thaw();
        }
        Poll.until(
                "400 orders processed",
                Duration.ofSeconds(120),
                () -> processed().path("processed").asLong() == 400);
        assertThat(processed().path("duplicates").asLong())
                .as("orders processed twice")
                .isZero();
        assertThat(logged.list)
                .filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.ERROR))
                .extracting(ILoggingEvent::getFormattedMessage)
                .isEmpty();
    }

    static long sum(JsonNode counts) {
        long sum = 0;
        for (JsonNode n : counts) {
            sum += n.asLong();
        }
        return sum;
    }

    static JsonNode processed() {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(
                                    URI.create("http://localhost:" + second.httpPort() + "/api/orders/processed"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            return json.readTree(response.body());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static void post(Instance instance, String path) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + instance.httpPort() + path))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }
}
