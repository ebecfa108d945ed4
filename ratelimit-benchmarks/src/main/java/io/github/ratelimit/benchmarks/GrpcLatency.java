package io.github.ratelimit.benchmarks;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.grpc.RateLimitGrpcAutoConfiguration;
import io.github.ratelimit.grpc.RateLimitServerInterceptor;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
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
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * What a rule of {@code ratelimit.grpc.rules} adds to a gRPC call: one service on gRPC's in-process transport (so that
 * only the call's path is measured, no network), a method a rule limits per {@code x-user-id} and one no rule
 * matches, in alternating rounds of sequential unary calls; prints the median latency of each per round, and the
 * difference: the rule's decision, one Redis round trip. Run with {@code --grpc} (and {@code --rounds=N},
 * {@code --calls=N}).
 */
final class GrpcLatency {

    private GrpcLatency() {}

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        RateLimitRedissonAutoConfiguration.class,
        RateLimitRedisAutoConfiguration.class,
        RateLimitAutoConfiguration.class,
        RateLimitGrpcAutoConfiguration.class
    })
    static class Application {}

    private static final MethodDescriptor.Marshaller<String> TEXT = new MethodDescriptor.Marshaller<>() {
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

    private static MethodDescriptor<String, String> method(String name) {
        return MethodDescriptor.<String, String>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName("bench.Echo/" + name)
                .setRequestMarshaller(TEXT)
                .setResponseMarshaller(TEXT)
                .build();
    }

    static void run(String redisUrl, int rounds, int calls) throws Exception {
        MethodDescriptor<String, String> limited = method("Limited");
        MethodDescriptor<String, String> plain = method("Plain");
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .logStartupInfo(false)
                .run(
                        "--spring.data.redis.url=" + redisUrl,
                        "--ratelimit.grpc.rules[0].name=echo",
                        "--ratelimit.grpc.rules[0].paths=bench.Echo/Limited",
                        "--ratelimit.grpc.rules[0].key=header:x-user-id",
                        "--ratelimit.grpc.rules[0].limits[0].limit=1000000000",
                        "--ratelimit.grpc.rules[0].limits[0].window=1m",
                        // a sliding window counts at most 16,777,215: a limit no run reaches is a fixed window's
                        "--ratelimit.grpc.rules[0].limits[0].algorithm=fixed-window")) {
            ServerServiceDefinition.Builder service = ServerServiceDefinition.builder("bench.Echo");
            for (MethodDescriptor<String, String> method : List.of(limited, plain)) {
                service.addMethod(method, ServerCalls.asyncUnaryCall((text, reply) -> {
                    reply.onNext(text);
                    reply.onCompleted();
                }));
            }
            Server server = InProcessServerBuilder.forName("bench")
                    .addService(ServerInterceptors.intercept(
                            service.build(), context.getBean(RateLimitServerInterceptor.class)))
                    .build()
                    .start();
            Metadata user = new Metadata();
            user.put(Metadata.Key.of("x-user-id", Metadata.ASCII_STRING_MARSHALLER), "bench-user");
            ManagedChannel channel = InProcessChannelBuilder.forName("bench").build();
            var client = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(user));
            try {
                System.out.println("gRPC unary call latency, median of " + calls + " sequential calls per round (us):");
                AlternatingRounds.print(
                        rounds,
                        "no rule",
                        "rule",
                        "the rule",
                        0,
                        "us",
                        () -> measure(client, plain, calls),
                        () -> measure(client, limited, calls));
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    /** The median latency of sequential calls, in microseconds. */
    private static double measure(io.grpc.Channel channel, MethodDescriptor<String, String> method, int calls) {
        long[] micros = new long[calls];
        for (int i = 0; i < calls; i++) {
            long started = System.nanoTime();
            ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT, "x");
            micros[i] = (System.nanoTime() - started) / 1_000;
        }
        Arrays.sort(micros);
        return micros[calls / 2];
    }
}
