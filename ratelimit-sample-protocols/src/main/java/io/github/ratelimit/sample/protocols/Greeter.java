package io.github.ratelimit.sample.protocols;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.springframework.stereotype.Service;

/**
 * The gRPC service {@code ratelimit.sample.Greeter} (src/main/proto/greeter.proto), served by Spring Boot's gRPC server
 * on {@code spring.grpc.server.port}. It has no limit of its own: the rule {@code greeter} of {@code
 * ratelimit.grpc.rules} (application.yml) limits {@code Hello} to 5 a second per {@code x-user-id}, decided before the
 * request is read.
 */
@Service
public class Greeter implements BindableService {

    public static final String SERVICE = "ratelimit.sample.Greeter";

    /** {@code rpc Hello (HelloRequest) returns (HelloReply)}: each message is its one string field. */
    public static final MethodDescriptor<String, String> HELLO = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Hello"))
            .setRequestMarshaller(new OneString())
            .setResponseMarshaller(new OneString())
            .build();

    @Override
    public ServerServiceDefinition bindService() {
        return ServerServiceDefinition.builder(SERVICE)
                .addMethod(HELLO, ServerCalls.asyncUnaryCall((name, reply) -> {
                    reply.onNext("Hello, " + (name.isEmpty() ? "world" : name));
                    reply.onCompleted();
                }))
                .build();
    }

    /**
     * A protobuf message of one string field, number 1 (HelloRequest's {@code name}, HelloReply's {@code message}),
     * written and read as protoc's code would, so that any gRPC client of greeter.proto talks to it.
     */
    static final class OneString implements MethodDescriptor.Marshaller<String> {

        private static final int FIELD_1 = 1 << 3 | 2; // field 1, length-delimited

        @Override
        public InputStream stream(String value) {
            try {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                CodedOutputStream out = CodedOutputStream.newInstance(bytes);
                if (!value.isEmpty()) {
                    out.writeString(1, value);
                }
                out.flush();
                return new ByteArrayInputStream(bytes.toByteArray());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public String parse(InputStream stream) {
            try {
                CodedInputStream in = CodedInputStream.newInstance(stream);
                String value = "";
                for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                    if (tag == FIELD_1) {
                        value = in.readStringRequireUtf8();
                    } else if (!in.skipField(tag)) {
                        break;
                    }
                }
                return value;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
