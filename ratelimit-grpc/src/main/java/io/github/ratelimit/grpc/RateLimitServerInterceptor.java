package io.github.ratelimit.grpc;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.call.CallRunner;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.FilterRuleSpec;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.PathRules;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.definition.RefreshableLimits;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.springframework.grpc.server.GlobalServerInterceptor;

/**
 * Limits gRPC calls. When a call starts, before its request message is read (so a refused call costs no
 * deserialization), the rules of {@code ratelimit.grpc.rules} that match its method are decided, all in one round
 * trip, through the same runner as HTTP: plans, overrides, blocks, exemptions, local limits while Redis cannot decide,
 * metrics and events. A streaming call is decided once, when it starts. A rule's paths are method patterns,
 * {@code package.Service/Method}: {@code ratelimit.sample.Greeter/Hello}, {@code ratelimit.sample.Greeter/*}, or
 * {@code **}; its keys read the call's metadata ({@code header:x-user-id}) or the peer's address ({@code ip}).
 *
 * <p>A refused call is closed with {@link GrpcRefusals}'s status and trailers, and so is a call whose service method
 * throws one of the library's refusals (an annotation on it: {@code @RateLimited}, {@code @ConcurrencyLimited},
 * {@code @Locked}, {@code @SingleUse}). An admitted call's response headers carry {@code ratelimit} and
 * {@code ratelimit-policy}. Under rules that count failures, a call that ends with a status other than {@code OK}
 * is a failure. Under Spring gRPC, a bean of it is a global interceptor of every service ({@link GlobalServerInterceptor},
 * ignored where Spring gRPC is absent).
 */
@GlobalServerInterceptor
public final class RateLimitServerInterceptor
        implements ServerInterceptor, DeclaredLimits, RefreshableLimits<List<FilterRuleSpec>> {

    private volatile PathRules rules;
    private final RateLimitDecisions decisions;
    private final KeyResolvers keys;
    private final boolean allPolicies;

    /**
     * @param rules the rules; each is checked now and fails with {@link InvalidFilterRuleException}
     * @param decisions the decision flow shared with the annotations
     * @param plans the plan groups rules may name
     * @param allPolicies whether the RateLimit fields carry every limit instead of those the client needs
     * @param keys the kinds of key rules may name
     */
    public RateLimitServerInterceptor(
            List<FilterRuleSpec> rules,
            RateLimitDecisions decisions,
            Plans plans,
            boolean allPolicies,
            KeyResolvers keys) {
        this.decisions = decisions;
        this.keys = keys;
        this.allPolicies = allPolicies;
        this.rules = compile(rules, plans, keys);
    }

    /** The rules in force. */
    public PathRules pathRules() {
        return rules;
    }

    @Override
    public List<DeclaredLimit> declaredLimits() {
        return rules.declaredLimits();
    }

    /** Refreshed {@code ratelimit.grpc.rules}, compiled now, put in force when all parts of the refresh compiled. */
    @Override
    public Runnable prepare(List<FilterRuleSpec> rules, Plans plans) {
        PathRules refreshed = compile(rules, plans, keys);
        return () -> this.rules = refreshed;
    }

    private static PathRules compile(List<FilterRuleSpec> rules, Plans plans, KeyResolvers keys) {
        return new PathRules(rules, "ratelimit.grpc.rules", plans, keys);
    }

    /** What follows an admitted call: the status it closes with is its outcome, and one other than OK a failure. */
    private static final RateLimitDecisions.After CLOSED_NOT_OK = new RateLimitDecisions.After() {
        @Override
        public boolean failure(@Nullable Object status) {
            return status instanceof Status closed && !closed.isOk();
        }
    };

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        String method = call.getMethodDescriptor().getFullMethodName(); // package.Service/Method
        Answering<Q, A> answering = new Answering<>(call, allPolicies);
        CallerContext view =
                PathRules.view(call, name -> header(headers, name), () -> null, () -> peer(call), answering::admitted);
        PathRules applied = rules;
        ServerCall.Listener<Q> listener = CallRunner.<ServerCall.Listener<Q>, RuntimeException>run(
                new CallRunner.Start(
                        decisions, view, caller -> applied.call(method, caller, decisions, 1), CLOSED_NOT_OK),
                refusal -> {
                    answering.refuse(refusal);
                    return new ServerCall.Listener<>() {};
                },
                end -> {
                    end.answersLater(); // at the close
                    answering.endsWith(end);
                    return new Refusing<>(next.startCall(answering, headers), answering);
                });
        return java.util.Objects.requireNonNull(listener);
    }

    /** A metadata value as text: ASCII keys only ({@code -bin} keys are binary and never a key's value). */
    private static @Nullable String header(Metadata headers, String name) {
        String key = name.toLowerCase(Locale.ROOT);
        if (key.endsWith(Metadata.BINARY_HEADER_SUFFIX) || key.isEmpty() || key.startsWith(":")) {
            return null;
        }
        try {
            return headers.get(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER));
        } catch (IllegalArgumentException notAKey) {
            return null;
        }
    }

    /** The peer's address: its IP for a network peer, else what the transport names it (in-process, a socket). */
    private static @Nullable String peer(ServerCall<?, ?> call) {
        SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        if (remote instanceof InetSocketAddress inet) {
            return inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString();
        }
        return remote == null ? null : remote.toString();
    }

    /**
     * The call as its handler sees it: the RateLimit fields go with the response headers, a refusal closes it with its
     * answer, and its end (the status it closes with) is told to the runner when that matters.
     */
    static final class Answering<Q, A> extends ForwardingServerCall.SimpleForwardingServerCall<Q, A> {

        private final boolean allPolicies;
        private final AtomicBoolean closed = new AtomicBoolean();
        private volatile @Nullable Decision admitted;
        private volatile CallRunner.@Nullable End end;

        Answering(ServerCall<Q, A> call, boolean allPolicies) {
            super(call);
            this.allPolicies = allPolicies;
        }

        void admitted(Decision decision) {
            admitted = decision;
        }

        /** The admitted call's end, told the status the call closes with. */
        void endsWith(CallRunner.End end) {
            this.end = end;
        }

        /** Closes the call with the answer of a refusal; false for an error that is not one. */
        boolean refuse(Throwable error) {
            StatusException answer = GrpcRefusals.of(error, allPolicies);
            if (answer == null) {
                return false;
            }
            Metadata trailers = answer.getTrailers();
            close(answer.getStatus(), trailers == null ? new Metadata() : trailers);
            return true;
        }

        @Override
        public void sendHeaders(Metadata headers) {
            Decision decision = admitted;
            if (decision != null && !decision.outcomes().isEmpty()) {
                GrpcRefusals.fields(headers, RateLimitHeaders.of(decision, allPolicies));
            }
            super.sendHeaders(headers);
        }

        @Override
        public void close(Status status, Metadata trailers) {
            if (!closed.compareAndSet(false, true)) {
                return; // a refusal answered already
            }
            CallRunner.End told = end;
            if (told != null) {
                told.answered(status);
            }
            super.close(status, trailers);
        }
    }

    /** The handler's listener: a refusal its service method throws closes the call with the refusal's answer. */
    static final class Refusing<Q> extends ForwardingServerCallListener.SimpleForwardingServerCallListener<Q> {

        private final Answering<Q, ?> call;

        Refusing(ServerCall.Listener<Q> delegate, Answering<Q, ?> call) {
            super(delegate);
            this.call = call;
        }

        @Override
        public void onMessage(Q message) {
            answered(() -> super.onMessage(message));
        }

        @Override
        public void onHalfClose() {
            answered(super::onHalfClose);
        }

        @Override
        public void onReady() {
            answered(super::onReady);
        }

        /** Runs a step of the handler; a refusal it throws closes the call with its answer, anything else goes on. */
        private void answered(Runnable step) {
            try {
                step.run();
            } catch (RuntimeException e) {
                if (!call.refuse(e)) {
                    throw e;
                }
            }
        }
    }
}
