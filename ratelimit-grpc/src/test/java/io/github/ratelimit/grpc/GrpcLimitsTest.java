package io.github.ratelimit.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.support.RateLimitFields;
import io.github.ratelimit.test.support.RedisProcess;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * gRPC calls limited by {@code ratelimit.grpc.rules} and by annotations on the service's methods, over gRPC's
 * in-process transport, with a real Redis and the starter's auto-configuration. Messages are text, marshalled by a
 * marshaller that counts what it parses: a call refused by a rule was never read.
 */
class GrpcLimitsTest {

    static final RedisProcess redis = SharedRedis.get();

    /** Request messages parsed by the server, of every call of the test. */
    static final AtomicInteger parsed = new AtomicInteger();

    static final MethodDescriptor.Marshaller<String> TEXT = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    static final MethodDescriptor.Marshaller<String> COUNTED = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return TEXT.stream(value);
        }

        @Override
        public String parse(InputStream stream) {
            parsed.incrementAndGet();
            return TEXT.parse(stream);
        }
    };

    static MethodDescriptor<String, String> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<String, String>newBuilder()
                .setType(type)
                .setFullMethodName("ratelimit.test.Greeter/" + name)
                .setRequestMarshaller(COUNTED)
                .setResponseMarshaller(TEXT)
                .build();
    }

    static final MethodDescriptor<String, String> HELLO = method("Hello", MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<String, String> GREET = method("Greet", MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<String, String> WORK = method("Work", MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<String, String> REDEEM = method("Redeem", MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<String, String> SAMPLE_HELLO = HELLO.toBuilder()
            .setFullMethodName("ratelimit.sample.Greeter/Hello")
            .build();
    static final MethodDescriptor<String, String> LOGIN = method("Login", MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<String, String> COUNT = method("Count", MethodDescriptor.MethodType.SERVER_STREAMING);

    /** The service's logic, a Spring bean whose annotations the starter applies. */
    static class Greeter {

        private final CountDownLatch working = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);

        /** Counted down once a call holds the lock (read through the bean's proxy, hence a method). */
        CountDownLatch working() {
            return working;
        }

        /** Lets the call that holds the lock finish. */
        CountDownLatch release() {
            return release;
        }

        @RateLimited(name = "greet", limit = 2, windowMs = 60_000, key = "#name")
        String greet(String name) {
            return "Hello, " + name;
        }

        @Locked(name = "work", key = "#name", leaseMs = 30_000)
        String work(String name) throws InterruptedException {
            working.countDown();
            release.await(30, TimeUnit.SECONDS);
            return "done";
        }

        @SingleUse(purpose = "redeem")
        String redeem(String token) {
            return "redeemed";
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class GrpcApp {
        @Bean
        Greeter greeter() {
            return new Greeter();
        }
    }

    final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    /** One instance: the application's context, and its gRPC server on the in-process transport. */
    record Instance(ConfigurableApplicationContext context, ManagedChannel channel) {

        Greeter greeter() {
            return context.getBean(Greeter.class);
        }
    }

    Instance instance(String prefix) throws IOException {
        return instance(prefix, Map.of());
    }

    Instance instance(String prefix, Map<String, Object> more) throws IOException {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.data.redis.url", redis.url());
        properties.put("ratelimit.key-prefix", prefix);
        properties.put("ratelimit.grpc.rules[0].name", "hello");
        properties.put("ratelimit.grpc.rules[0].paths", "ratelimit.test.Greeter/Hello");
        properties.put("ratelimit.grpc.rules[0].key", "header:x-user-id");
        properties.put("ratelimit.grpc.rules[0].limits[0].limit", "3");
        properties.put("ratelimit.grpc.rules[0].limits[0].window", "1m");
        properties.put("ratelimit.grpc.rules[1].name", "count");
        properties.put("ratelimit.grpc.rules[1].paths", "ratelimit.test.Greeter/Count");
        properties.put("ratelimit.grpc.rules[1].key", "ip");
        properties.put("ratelimit.grpc.rules[1].limits[0].limit", "1");
        properties.put("ratelimit.grpc.rules[1].limits[0].window", "1m");
        properties.put("ratelimit.grpc.rules[2].name", "login");
        properties.put("ratelimit.grpc.rules[2].paths", "ratelimit.test.Greeter/Log*");
        properties.put("ratelimit.grpc.rules[2].key", "header:x-user-id");
        properties.put("ratelimit.grpc.rules[2].count-on", "failure");
        properties.put("ratelimit.grpc.rules[2].limits[0].limit", "2");
        properties.put("ratelimit.grpc.rules[2].limits[0].window", "1m");
        properties.putAll(more);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(GrpcApp.class)
                .web(WebApplicationType.NONE)
                .properties(properties)
                .run();
        started.add(context);
        Greeter greeter = context.getBean(Greeter.class);
        ServerServiceDefinition service = ServerServiceDefinition.builder("ratelimit.test.Greeter")
                .addMethod(HELLO, ServerCalls.asyncUnaryCall((name, reply) -> {
                    reply.onNext("Hello, " + name);
                    reply.onCompleted();
                }))
                .addMethod(GREET, ServerCalls.asyncUnaryCall((name, reply) -> {
                    reply.onNext(greeter.greet(name));
                    reply.onCompleted();
                }))
                .addMethod(WORK, ServerCalls.asyncUnaryCall((name, reply) -> {
                    try {
                        reply.onNext(greeter.work(name));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    reply.onCompleted();
                }))
                .addMethod(REDEEM, ServerCalls.asyncUnaryCall((token, reply) -> {
                    reply.onNext(greeter.redeem(token));
                    reply.onCompleted();
                }))
                .addMethod(LOGIN, ServerCalls.asyncUnaryCall((password, reply) -> {
                    if (password.equals("secret")) {
                        reply.onNext("welcome");
                        reply.onCompleted();
                    } else {
                        reply.onError(Status.UNAUTHENTICATED.asRuntimeException());
                    }
                }))
                .addMethod(COUNT, ServerCalls.asyncServerStreamingCall((name, reply) -> {
                    for (int i = 1; i <= 5; i++) {
                        reply.onNext(Integer.toString(i));
                    }
                    reply.onCompleted();
                }))
                .build();
        ServerServiceDefinition sample = ServerServiceDefinition.builder("ratelimit.sample.Greeter")
                .addMethod(SAMPLE_HELLO, ServerCalls.asyncUnaryCall((name, reply) -> {
                    reply.onNext("Hello, " + name);
                    reply.onCompleted();
                }))
                .build();
        RateLimitServerInterceptor interceptor = context.getBean(RateLimitServerInterceptor.class);
        String name = "grpc-" + UUID.randomUUID();
        Server server = InProcessServerBuilder.forName(name)
                .addService(ServerInterceptors.intercept(service, interceptor))
                .addService(ServerInterceptors.intercept(sample, interceptor))
                .build()
                .start();
        started.add(() -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
        ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
        started.add(() -> channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
        return new Instance(context, channel);
    }

    /** What one unary call answered: its reply or its status, and the headers and trailers it received. */
    record Answer(String reply, Status status, Metadata headers, Metadata trailers) {}

    static Answer call(Instance instance, MethodDescriptor<String, String> method, String user, String message) {
        Metadata sent = new Metadata();
        sent.put(Metadata.Key.of("x-user-id", Metadata.ASCII_STRING_MARSHALLER), user);
        AtomicReference<Metadata> headers = new AtomicReference<>(new Metadata());
        AtomicReference<Metadata> trailers = new AtomicReference<>(new Metadata());
        var channel = ClientInterceptors.intercept(
                instance.channel(),
                MetadataUtils.newAttachHeadersInterceptor(sent),
                MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
        try {
            String reply = ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT, message);
            return new Answer(reply, Status.OK, headers.get(), trailers.get());
        } catch (StatusRuntimeException e) {
            Metadata got = e.getTrailers() != null ? e.getTrailers() : trailers.get();
            return new Answer("", e.getStatus(), headers.get(), got);
        }
    }

    @Test
    void aRuleAdmitsItsLimitPerKeyAndRefusesTheRestBeforeTheirMessageIsRead() throws IOException {
        Instance instance = instance("grpc-" + UUID.randomUUID() + ":");
        int parsedBefore = parsed.get();
        List<Answer> alice = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            alice.add(call(instance, HELLO, "alice", "alice"));
        }
        assertThat(alice)
                .extracting(a -> a.status().getCode())
                .containsExactly(
                        Status.Code.OK,
                        Status.Code.OK,
                        Status.Code.OK,
                        Status.Code.RESOURCE_EXHAUSTED,
                        Status.Code.RESOURCE_EXHAUSTED);
        assertThat(parsed.get() - parsedBefore).as("request messages read").isEqualTo(3);

        Answer admitted = alice.get(0);
        assertThat(admitted.reply()).isEqualTo("Hello, alice");
        RateLimitFields fields = RateLimitFields.parse(
                admitted.headers().get(GrpcRefusals.RATE_LIMIT_POLICY),
                admitted.headers().get(GrpcRefusals.RATE_LIMIT));
        assertThat(fields.states().values()).extracting(state -> state.get("r")).containsExactly(2L);

        Answer refused = alice.get(3);
        assertThat(refused.status().getDescription())
                .contains("Rate limit exceeded")
                .contains("hello");
        long pushback = Long.parseLong(refused.trailers().get(GrpcRefusals.RETRY_PUSHBACK_MS));
        assertThat(pushback).isBetween(1L, 60_000L);
        RateLimitFields refusedFields = RateLimitFields.parse(
                refused.trailers().get(GrpcRefusals.RATE_LIMIT_POLICY),
                refused.trailers().get(GrpcRefusals.RATE_LIMIT));
        assertThat(refusedFields.policies().values())
                .extracting(policy -> policy.get("q"))
                .containsExactly(3L);
        assertThat(refusedFields.states().values())
                .extracting(state -> state.get("r"))
                .containsExactly(0L);

        assertThat(call(instance, HELLO, "bob", "bob").status().getCode())
                .as("another key has its own count")
                .isEqualTo(Status.Code.OK);

        int parsedBeforeAnonymous = parsed.get();
        assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(instance.channel(), HELLO, CallOptions.DEFAULT, "anon"))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus())
                        .satisfies(status -> assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT))
                        .satisfies(status -> assertThat(status.getDescription()).contains("x-user-id")));
        assertThat(parsed.get()).as("a call without its key is not read").isEqualTo(parsedBeforeAnonymous);
    }

    /** The IDE's help of the module's own setting says what its paths and keys are. */
    @Test
    void theModulesSettingIsDescribedForTheIde() {
        assertThat(io.github.ratelimit.fixtures.SettingsMetadata.description("ratelimit.grpc.rules"))
                .contains("package.Service/Method", "header:x-user-id");
    }

    /** A setting of the module that no settings class takes fails the start, naming it. */
    @Test
    void aMisspeltSettingFailsTheStartNamingIt() {
        assertThatThrownBy(() ->
                        instance("grpc-" + UUID.randomUUID() + ":", Map.of("ratelimit.grpc.rule[0].name", "typo")))
                .satisfies(e -> assertThat(io.github.ratelimit.fixtures.Causes.messages(e))
                        .contains("ratelimit.grpc.rule[0].name"));
    }

    /** gRPC calls have no HTTP method: a rule that lists some would never match, so it fails the start, named. */
    @Test
    void aRuleWithHttpMethodsFailsTheStartNamingThem() {
        assertThatThrownBy(() ->
                        instance("grpc-" + UUID.randomUUID() + ":", Map.of("ratelimit.grpc.rules[1].methods", "GET")))
                .satisfies(e -> assertThat(io.github.ratelimit.fixtures.Causes.messages(e))
                        .contains("ratelimit.grpc.rules[1].methods")
                        .contains("no HTTP method"));
    }

    /** The rules of docs/grpc.md, as printed: five calls a second per x-user-id on the sample's Greeter/Hello. */
    @Test
    void theRuleOfTheDocsLimitsItsMethod() throws IOException {
        Map<String, Object> documented = io.github.ratelimit.fixtures.DocsYaml.firstBlock("grpc.md");
        Instance instance = instance("grpc-" + UUID.randomUUID() + ":", documented); // in place of the first rule

        assertThat(documented).containsEntry("ratelimit.grpc.rules[0].paths", "ratelimit.sample.Greeter/Hello");
        // a window of one second: an attempt counts when its six calls were made within one window (a loaded machine
        // may take longer; then another user tries again)
        for (int attempt = 0; attempt < 5; attempt++) {
            String user = "henry-" + attempt;
            long start = System.nanoTime();
            List<Status.Code> codes = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                codes.add(call(instance, SAMPLE_HELLO, user, user).status().getCode());
            }
            if (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(900)) {
                assertThat(codes)
                        .containsExactly(
                                Status.Code.OK,
                                Status.Code.OK,
                                Status.Code.OK,
                                Status.Code.OK,
                                Status.Code.OK,
                                Status.Code.RESOURCE_EXHAUSTED);
                return;
            }
        }
        throw new AssertionError("no six calls fitted in one second in five attempts");
    }

    @Test
    void aRuleThatCountsFailuresTakesOnlyCallsThatDidNotEndOk() throws IOException {
        Instance instance = instance("grpc-" + UUID.randomUUID() + ":");
        for (int i = 0; i < 4; i++) {
            assertThat(call(instance, LOGIN, "grace", "secret").reply()).isEqualTo("welcome");
        }
        assertThat(call(instance, LOGIN, "grace", "guess").status().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(call(instance, LOGIN, "grace", "guess").status().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
        Answer refused = call(instance, LOGIN, "grace", "secret");
        assertThat(refused.status().getCode())
                .as("two failures used the budget of two")
                .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(refused.status().getDescription()).contains("login");
    }

    /**
     * Spring gRPC finds the interceptor as it finds every global interceptor (the beans carrying
     * {@code @GlobalServerInterceptor}), and its exception handling answers a refusal the interceptor would.
     */
    @Test
    void underSpringGrpcTheInterceptorIsGlobalAndRefusalsHaveTheirStatus() throws IOException {
        Instance instance = instance("grpc-" + UUID.randomUUID() + ":");
        assertThat(instance.context()
                        .getBeansWithAnnotation(org.springframework.grpc.server.GlobalServerInterceptor.class)
                        .values())
                .containsExactly(instance.context().getBean(RateLimitServerInterceptor.class));
        var handlers = instance.context()
                .getBeansOfType(org.springframework.grpc.server.exception.GrpcExceptionHandler.class)
                .values();
        assertThat(handlers).hasSize(1);
        var handler = handlers.iterator().next();
        assertThat(handler.handleException(new io.github.ratelimit.core.locks.LockNotAcquiredException(
                                "work", Duration.ofSeconds(2)))
                        .getStatus()
                        .getCode())
                .isEqualTo(Status.Code.ABORTED);
        assertThat(handler.handleException(new IllegalStateException("not ours")))
                .isNull();
    }

    /** A bad rule fails the start, naming its property; no other rule's name is borrowed. */
    @Test
    void aBadRuleFailsTheStartNamingItsProperty() {
        assertThatThrownBy(() -> instance(
                        "grpc-" + UUID.randomUUID() + ":", Map.of("ratelimit.grpc.rules[1].limits[0].limit", "0")))
                .hasStackTraceContaining("ratelimit.grpc.rules[1].limits[0]")
                .satisfies(e -> assertThat(e).hasStackTraceContaining("ratelimit.grpc.rules[1]"));
    }

    /**
     * A refresh of the properties (Spring Cloud's) puts changed gRPC rules in force, read by the module's own part of
     * the refresh from {@code ratelimit.grpc.rules} as the environment has them then; the filter's never replace them.
     */
    @Test
    void aRefreshPutsChangedRulesInForce() throws IOException {
        Instance instance = instance("grpc-" + UUID.randomUUID() + ":");
        var environment = instance.context().getEnvironment();
        // a list is bound from the one source that has it (Boot does not merge lists): the new source has all of it
        Map<String, Object> changed = new LinkedHashMap<>();
        for (int rule = 0; rule < 3; rule++) {
            for (String field : List.of("name", "paths", "key", "count-on", "limits[0].limit", "limits[0].window")) {
                String name = "ratelimit.grpc.rules[" + rule + "]." + field;
                if (environment.containsProperty(name)) {
                    changed.put(name, environment.getProperty(name));
                }
            }
        }
        changed.put("ratelimit.grpc.rules[0].limits[0].limit", "1");
        environment
                .getPropertySources()
                .addFirst(new org.springframework.core.env.MapPropertySource("refreshed", changed));
        io.github.ratelimit.autoconfigure.RefreshPart<?> part =
                instance.context().getBean("rateLimitGrpcRefresh", io.github.ratelimit.autoconfigure.RefreshPart.class);
        assertThat(part.limits()).isSameAs(instance.context().getBean(RateLimitServerInterceptor.class));
        part.prepare(
                        new io.github.ratelimit.autoconfigure.RefreshPart.Settings(
                                org.springframework.boot.context.properties.bind.Binder.get(environment)),
                        io.github.ratelimit.spring.definition.Plans.NONE)
                .run();
        assertThat(call(instance, HELLO, "ivy", "ivy").status().getCode()).isEqualTo(Status.Code.OK);
        assertThat(call(instance, HELLO, "ivy", "ivy").status().getCode())
                .as("the refreshed limit of one")
                .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    }

    @Test
    void twoInstancesOnOneRedisAdmitExactlyTheLimitBetweenThem() throws Exception {
        String prefix = "grpc-" + UUID.randomUUID() + ":";
        Instance[] instances = {instance(prefix), instance(prefix)};
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<Status.Code>> answers = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (int i = 0; i < 40; i++) {
                Instance instance = instances[i % 2];
                answers.add(threads.submit(() -> {
                    go.await();
                    return call(instance, HELLO, "carol", "carol").status().getCode();
                }));
            }
            go.countDown();
            int ok = 0;
            for (Future<Status.Code> answer : answers) {
                Status.Code code = answer.get(30, TimeUnit.SECONDS);
                assertThat(code).isIn(Status.Code.OK, Status.Code.RESOURCE_EXHAUSTED);
                ok += code == Status.Code.OK ? 1 : 0;
            }
            assertThat(ok).isEqualTo(3);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aStreamingCallIsDecidedOnceWhenItStarts() throws IOException {
        Instance instance = instance("grpc-" + UUID.randomUUID() + ":");
        Iterator<String> first =
                ClientCalls.blockingServerStreamingCall(instance.channel(), COUNT, CallOptions.DEFAULT, "x");
        List<String> messages = new ArrayList<>();
        first.forEachRemaining(messages::add);
        assertThat(messages).as("five messages under a limit of one call").containsExactly("1", "2", "3", "4", "5");

        Iterator<String> second =
                ClientCalls.blockingServerStreamingCall(instance.channel(), COUNT, CallOptions.DEFAULT, "x");
        assertThatThrownBy(second::next).isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(
                        e.getStatus().getCode())
                .isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    }

    @Test
    void anAnnotatedServiceMethodIsRefusedWithResourceExhaustedAndItsFields() throws IOException {
        Instance instance = instance("grpc-" + UUID.randomUUID() + ":");
        assertThat(call(instance, GREET, "dave", "dave").reply()).isEqualTo("Hello, dave");
        assertThat(call(instance, GREET, "dave", "dave").status().getCode()).isEqualTo(Status.Code.OK);
        Answer refused = call(instance, GREET, "dave", "dave");
        assertThat(refused.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(refused.status().getDescription()).contains("greet");
        assertThat(Long.parseLong(refused.trailers().get(GrpcRefusals.RETRY_PUSHBACK_MS)))
                .isBetween(1L, 60_000L);
        RateLimitFields fields = RateLimitFields.parse(
                refused.trailers().get(GrpcRefusals.RATE_LIMIT_POLICY),
                refused.trailers().get(GrpcRefusals.RATE_LIMIT));
        assertThat(fields.policies().values())
                .extracting(policy -> policy.get("q"))
                .containsExactly(2L);
    }

    @Test
    void aBusyLockIsAbortedAndAUsedTokenIsAFailedPrecondition() throws Exception {
        Instance instance = instance("grpc-" + UUID.randomUUID() + ":");
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<Answer> holder = thread.submit(() -> call(instance, WORK, "erin", "erin"));
            assertThat(instance.greeter().working().await(30, TimeUnit.SECONDS)).isTrue();
            Answer busy = call(instance, WORK, "erin", "erin");
            assertThat(busy.status().getCode()).isEqualTo(Status.Code.ABORTED);
            assertThat(busy.trailers().get(GrpcRefusals.RETRY_PUSHBACK_MS)).isNotNull();
            instance.greeter().release().countDown();
            assertThat(holder.get(30, TimeUnit.SECONDS).status().getCode()).isEqualTo(Status.Code.OK);
        } finally {
            thread.shutdownNow();
        }

        String token = instance.context()
                .getBean(SingleUseTokens.class)
                .issue("redeem", Map.of(), Duration.ofMinutes(5))
                .token();
        assertThat(call(instance, REDEEM, "frank", token).reply()).isEqualTo("redeemed");
        Answer used = call(instance, REDEEM, "frank", token);
        assertThat(used.status().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(used.status().getDescription()).doesNotContain(token);
    }
}
