package io.github.ratelimit.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.support.RedisProcess;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Outbound rules on a gRPC channel: an upstream on gRPC's in-process transport counts the calls that reach it; the
 * application's channel carries the starter's client interceptor, with the rules of {@code ratelimit.client.rules}.
 */
class GrpcClientLimitsTest {

    static final RedisProcess redis = SharedRedis.get();

    static MethodDescriptor<String, String> method(String name) {
        return MethodDescriptor.<String, String>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName("test.Upstream/" + name)
                .setRequestMarshaller(GrpcLimitsTest.TEXT)
                .setResponseMarshaller(GrpcLimitsTest.TEXT)
                .build();
    }

    static final MethodDescriptor<String, String> CALL = method("Call");
    static final MethodDescriptor<String, String> BUSY = method("Busy");
    static final MethodDescriptor<String, String> PACED = method("Paced");
    static final MethodDescriptor<String, String> HELD = method("Held");

    /** A call of HELD is inside the upstream. */
    final java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
    /** Lets the calls of HELD answer. */
    final java.util.concurrent.CountDownLatch leave = new java.util.concurrent.CountDownLatch(1);

    /** Calls that reached the upstream. */
    final AtomicInteger reached = new AtomicInteger();

    final List<AutoCloseable> started = new ArrayList<>();

    ConfigurableApplicationContext context;

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    /** The application's channel to an upstream that answers every call, and RESOURCE_EXHAUSTED for "busy". */
    ManagedChannel channel() throws IOException {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.data.redis.url", redis.url());
        properties.put("ratelimit.key-prefix", "grpc-client-" + UUID.randomUUID() + ":");
        properties.put("ratelimit.client.rules[0].name", "upstream");
        properties.put("ratelimit.client.rules[0].paths", "/test.Upstream/Call");
        properties.put("ratelimit.client.rules[0].limits[0].limit", "3");
        properties.put("ratelimit.client.rules[0].limits[0].window", "1m");
        properties.put("ratelimit.client.rules[1].name", "busy");
        properties.put("ratelimit.client.rules[1].paths", "/test.Upstream/Busy");
        properties.put("ratelimit.client.rules[1].limits[0].limit", "100");
        properties.put("ratelimit.client.rules[1].limits[0].window", "1m");
        properties.put("ratelimit.client.rules[2].name", "paced");
        properties.put("ratelimit.client.rules[2].paths", "/test.Upstream/Paced");
        properties.put("ratelimit.client.rules[2].limits[0].limit", "1");
        properties.put("ratelimit.client.rules[2].limits[0].window", "1s");
        properties.put("ratelimit.client.rules[2].wait", "10s");
        properties.put("ratelimit.client.rules[3].name", "held");
        properties.put("ratelimit.client.rules[3].paths", "/test.Upstream/Held");
        properties.put("ratelimit.client.rules[3].concurrency.max", "1");
        context = new SpringApplicationBuilder(GrpcLimitsTest.GrpcApp.class)
                .web(WebApplicationType.NONE)
                .properties(properties)
                .run();
        started.add(context);
        ServerServiceDefinition.Builder upstream = ServerServiceDefinition.builder("test.Upstream");
        for (MethodDescriptor<String, String> method : List.of(CALL, BUSY, PACED, HELD)) {
            upstream.addMethod(method, ServerCalls.asyncUnaryCall((text, reply) -> {
                reached.incrementAndGet();
                if (text.equals("hold")) {
                    inside.countDown();
                    try {
                        leave.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                if (text.equals("busy")) {
                    Metadata trailers = new Metadata();
                    trailers.put(GrpcRefusals.RETRY_PUSHBACK_MS, "30000");
                    reply.onError(Status.RESOURCE_EXHAUSTED.asRuntimeException(trailers));
                } else {
                    reply.onNext("ok " + text);
                    reply.onCompleted();
                }
            }));
        }
        String name = "upstream-" + UUID.randomUUID();
        Server server = InProcessServerBuilder.forName(name)
                .addService(upstream.build())
                .build()
                .start();
        started.add(() -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
        ManagedChannel channel = InProcessChannelBuilder.forName(name)
                .intercept(context.getBean(RateLimitClientInterceptor.class))
                .build();
        started.add(() -> channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
        return channel;
    }

    static Status.Code code(ManagedChannel channel, MethodDescriptor<String, String> method, String text) {
        try {
            ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT, text);
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
    }

    @Test
    void aRuleAdmitsItsBudgetAndRefusesTheRestWithoutReachingTheUpstream() throws Exception {
        ManagedChannel channel = channel();
        List<Status.Code> codes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            codes.add(code(channel, CALL, "x"));
        }
        assertThat(codes)
                .containsExactly(Status.Code.OK, Status.Code.OK, Status.Code.OK, Status.Code.RESOURCE_EXHAUSTED);
        // a call of the future stub, whose listener gRPC calls without an executor of the caller's
        assertThatThrownBy(() -> ClientCalls.futureUnaryCall(channel.newCall(CALL, CallOptions.DEFAULT), "y")
                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                    assertThat(e.getStatus().getDescription()).contains("upstream");
                    assertThat(Long.parseLong(e.getTrailers().get(GrpcRefusals.RETRY_PUSHBACK_MS)))
                            .isBetween(1L, 60_000L);
                });
        assertThat(reached.get()).as("calls that reached the upstream").isEqualTo(3);
        assertThat(context.getBeansWithAnnotation(org.springframework.grpc.client.GlobalClientInterceptor.class)
                        .values())
                .as("what Spring gRPC adds to every channel")
                .containsExactly(context.getBean(RateLimitClientInterceptor.class));
    }

    @Test
    void theUpstreamsPushbackHoldsTheRulesCallsBack() throws Exception {
        ManagedChannel channel = channel();
        assertThat(code(channel, BUSY, "busy")).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(reached.get()).isEqualTo(1);
        assertThat(code(channel, BUSY, "x"))
                .as("refused by the pause, within the budget of 100")
                .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(reached.get())
                .as("the paused call never reached the upstream")
                .isEqualTo(1);
        assertThat(code(channel, CALL, "x")).as("another rule is not paused").isEqualTo(Status.Code.OK);
    }

    @Test
    void aRuleThatWaitsHoldsACallUntilItsBudgetHasRoom() throws Exception {
        ManagedChannel channel = channel();
        assertThat(code(channel, PACED, "1")).isEqualTo(Status.Code.OK);
        assertThat(code(channel, PACED, "2")).as("held back, then sent").isEqualTo(Status.Code.OK);
        assertThat(reached.get()).isEqualTo(2);
    }

    /**
     * A rule's concurrency limit of 1 on the channel: while a call is in flight, the next ends with
     * {@code RESOURCE_EXHAUSTED} without reaching the upstream; once the first closed, its slot is back.
     */
    @Test
    void aRulesConcurrencyLimitRefusesTheCallOverItUnsent() throws Exception {
        ManagedChannel channel = channel();
        var held = ClientCalls.futureUnaryCall(channel.newCall(HELD, CallOptions.DEFAULT), "hold");
        try {
            assertThat(inside.await(10, TimeUnit.SECONDS))
                    .as("the first call inside the upstream (%s)", held.isDone() ? describe(held) : "running")
                    .isTrue();
            assertThat(code(channel, HELD, "x")).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(reached.get())
                    .as("the refused call never reached the upstream")
                    .isEqualTo(1);
        } finally {
            leave.countDown();
        }
        assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo("ok hold");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (code(channel, HELD, "x") != Status.Code.OK) { // the slot is given back as the call closes
            assertThat(System.nanoTime() - deadline).as("the slot back").isNegative();
        }
    }

    static String describe(java.util.concurrent.Future<?> done) {
        try {
            return String.valueOf(done.get());
        } catch (Exception e) {
            StringBuilder causes = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                causes.append(t).append(" <- ");
                if (t instanceof StatusRuntimeException status
                        && status.getStatus().getCause() != null) {
                    causes.append(status.getStatus().getCause()).append(" <- ");
                }
            }
            return causes.toString();
        }
    }
}
