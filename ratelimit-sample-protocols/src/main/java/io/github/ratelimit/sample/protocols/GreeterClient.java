package io.github.ratelimit.sample.protocols;

import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.util.concurrent.TimeUnit;

/**
 * Calls {@code Greeter/Hello} a few times as one user and prints each answer: the README's gRPC tour.
 *
 * <pre>java -cp ratelimit-sample-protocols/target/ratelimit-sample-protocols.jar \
 *   -Dloader.main=io.github.ratelimit.sample.protocols.GreeterClient \
 *   org.springframework.boot.loader.launch.PropertiesLauncher localhost:9090 alice 7</pre>
 */
public final class GreeterClient {

    static final Metadata.Key<String> USER = Metadata.Key.of("x-user-id", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> PUSHBACK =
            Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> RATELIMIT = Metadata.Key.of("ratelimit", Metadata.ASCII_STRING_MARSHALLER);

    private GreeterClient() {}

    public static void main(String[] args) throws InterruptedException {
        String target = args.length > 0 ? args[0] : "localhost:9090";
        String user = args.length > 1 ? args[1] : "alice";
        int calls = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        ManagedChannel channel =
                ManagedChannelBuilder.forTarget(target).usePlaintext().build();
        try {
            for (int i = 0; i < calls; i++) {
                System.out.println(hello(channel, user, "call " + (i + 1)));
            }
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** One call: {@code OK <message>}, or the status with its description and the refusal's trailers. */
    static String hello(io.grpc.Channel channel, String user, String name) {
        try {
            return "OK " + call(channel, user, name, 10);
        } catch (StatusRuntimeException e) {
            Metadata trailers = e.getTrailers() == null ? new Metadata() : e.getTrailers();
            return e.getStatus().getCode() + " " + e.getStatus().getDescription() + " (grpc-retry-pushback-ms: "
                    + trailers.get(PUSHBACK) + ", ratelimit: " + trailers.get(RATELIMIT) + ")";
        }
    }

    /**
     * {@code Hello(name)} as {@code user} (the {@code x-user-id} metadata), within {@code deadlineSeconds}.
     *
     * @throws StatusRuntimeException when the call does not end with {@code OK}, with the refusal's trailers
     */
    static String call(io.grpc.Channel channel, String user, String name, long deadlineSeconds) {
        Metadata headers = new Metadata();
        headers.put(USER, user);
        return ClientCalls.blockingUnaryCall(
                ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers)),
                Greeter.HELLO,
                CallOptions.DEFAULT.withDeadlineAfter(deadlineSeconds, TimeUnit.SECONDS),
                name);
    }
}
