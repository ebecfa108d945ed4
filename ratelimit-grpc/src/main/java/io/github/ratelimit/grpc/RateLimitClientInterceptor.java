package io.github.ratelimit.grpc;

import io.github.ratelimit.spring.call.CallRunner;
import io.github.ratelimit.spring.client.OutboundLimits;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.grpc.client.GlobalClientInterceptor;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Outbound limits on the gRPC calls the application sends: the rules of {@code ratelimit.client.rules} (one budget per
 * rule shared by every instance) match a call as {@code POST grpc://<authority>/<package.Service>/<Method>}, so a rule's
 * {@code hosts} are the channel's authority and its {@code paths} method patterns ({@code /package.Service/*}). A call
 * is decided when it starts, without blocking the caller: what it sends meanwhile waits, in order. A call with room
 * goes on; one without waits as its rule allows ({@code wait}) or ends at once with {@code RESOURCE_EXHAUSTED} (and
 * {@code grpc-retry-pushback-ms}) without reaching the upstream. When the upstream answers {@code RESOURCE_EXHAUSTED}
 * or {@code UNAVAILABLE} with {@code grpc-retry-pushback-ms}, every instance holds the rule's calls back until then,
 * as after an HTTP 429 with {@code Retry-After}. A rule's concurrency limit takes its slot once the call is admitted (a
 * refusal ends it with {@code RESOURCE_EXHAUSTED}, unsent) and gives it back when the call closes: as a drop after
 * {@code RESOURCE_EXHAUSTED}, {@code UNAVAILABLE}, {@code DEADLINE_EXCEEDED} and the like. Under Spring gRPC, a bean
 * of it is a global interceptor of every channel ({@link GlobalClientInterceptor}, ignored where Spring gRPC is
 * absent).
 */
@GlobalClientInterceptor
public final class RateLimitClientInterceptor implements ClientInterceptor {

    private final OutboundLimits limits;

    /** @param limits the outbound rules, as the HTTP clients' */
    public RateLimitClientInterceptor(OutboundLimits limits) {
        this.limits = limits;
    }

    @Override
    public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
        OutboundLimits.Matched matched = limits.isEmpty() ? null : limits.matched("POST", uri(next, method));
        ClientCall<Q, A> call = next.newCall(method, options);
        return matched == null ? call : new Decided<>(call, matched, options.getExecutor());
    }

    private static URI uri(Channel channel, MethodDescriptor<?, ?> method) {
        try {
            return new URI("grpc", channel.authority(), "/" + method.getFullMethodName(), null, null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("the channel's authority '" + channel.authority() + "' is no URI's", e);
        }
    }

    /**
     * A call that starts once its rules admitted it. What the caller does before then ({@code request},
     * {@code sendMessage}, {@code halfClose}, {@code cancel}) is kept and done in order once it started; a refused call
     * ends with its refusal, and what was kept is dropped.
     */
    static final class Decided<Q, A> extends ClientCall<Q, A> {

        private final ClientCall<Q, A> call;
        private final OutboundLimits.Matched matched;
        private final @Nullable Executor executor;
        private final Object lock = new Object();
        private @Nullable List<Consumer<ClientCall<Q, A>>> kept = new ArrayList<>(); // null once started or refused
        private boolean refused;

        Decided(ClientCall<Q, A> call, OutboundLimits.Matched matched, @Nullable Executor executor) {
            this.call = call;
            this.matched = matched;
            this.executor = executor;
        }

        @Override
        public void start(Listener<A> listener, Metadata headers) {
            boolean[] admitted = {false};
            CallRunner.mono(matched.start(), end -> Mono.fromCompletionStage(matched.slots())
                            .flatMap(slots -> Mono.<Void>create(sink -> {
                                admitted[0] = true;
                                synchronized (lock) {
                                    call.start(new Told(listener, sink, slots), headers);
                                    List<Consumer<ClientCall<Q, A>>> waiting = kept;
                                    kept = null;
                                    if (waiting != null) {
                                        waiting.forEach(step -> step.accept(call));
                                    }
                                }
                            })))
                    .subscribe(null, error -> {
                        if (!admitted[0]) {
                            refuse(listener, error);
                        }
                    });
        }

        /**
         * The caller's listener of an admitted call: its end is the runner's, and an upstream that asks to wait holds
         * the rules' calls back on every instance before the caller learns the answer.
         */
        private final class Told extends ForwardingClientCallListener.SimpleForwardingClientCallListener<A> {

            private final MonoSink<Void> ended;
            private final OutboundLimits.Slots slots;

            Told(Listener<A> listener, MonoSink<Void> ended, OutboundLimits.Slots slots) {
                super(listener);
                this.ended = ended;
                this.slots = slots;
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
                slots.ended(dropped(status));
                Runnable close = () -> {
                    super.onClose(status, trailers);
                    if (status.isOk()) {
                        ended.success();
                    } else {
                        ended.error(status.asRuntimeException(trailers));
                    }
                };
                Duration pause = pushback(status, trailers);
                if (pause == null) {
                    close.run();
                } else {
                    matched.pushedBack(status.getCode().name(), pause).whenComplete((paused, error) -> deliver(close));
                }
            }
        }

        /**
         * Whether a call that ended with {@code status} is a drop for an adaptive concurrency limit: the upstream shed
         * it, failed, timed out, or the call was cancelled; an answer about the request itself is a completed call.
         */
        static boolean dropped(Status status) {
            return switch (status.getCode()) {
                case RESOURCE_EXHAUSTED, UNAVAILABLE, DEADLINE_EXCEEDED, INTERNAL, UNKNOWN, CANCELLED, ABORTED -> true;
                default -> false;
            };
        }

        /** How long the upstream asked to wait ({@code grpc-retry-pushback-ms} on a refusal), or null. */
        private static @Nullable Duration pushback(Status status, Metadata trailers) {
            if (status.getCode() != Status.Code.RESOURCE_EXHAUSTED && status.getCode() != Status.Code.UNAVAILABLE) {
                return null;
            }
            String millis = trailers.get(GrpcRefusals.RETRY_PUSHBACK_MS);
            return millis == null || !millis.matches("\\d{1,9}") ? null : Duration.ofMillis(Long.parseLong(millis));
        }

        /** Tells the listener through the call's executor when it has one, as gRPC tells a listener. */
        private void deliver(Runnable told) {
            if (executor != null) {
                executor.execute(told);
            } else {
                told.run();
            }
        }

        /** Ends the call with its refusal, through the call's executor when it has one, as gRPC tells a listener. */
        private void refuse(Listener<A> listener, Throwable error) {
            synchronized (lock) {
                refused = true;
                kept = null;
            }
            StatusException answer = GrpcRefusals.of(error, false);
            Status status = answer != null ? answer.getStatus() : Status.fromThrowable(error);
            Metadata trailers = answer != null && answer.getTrailers() != null ? answer.getTrailers() : new Metadata();
            deliver(() -> listener.onClose(status, trailers));
        }

        /** Does {@code step} now if the call started, later if it is being decided, never if it was refused. */
        private void then(Consumer<ClientCall<Q, A>> step) {
            synchronized (lock) {
                if (kept != null) {
                    kept.add(step);
                    return;
                }
                if (refused) {
                    return;
                }
                step.accept(call);
            }
        }

        @Override
        public void request(int messages) {
            then(started -> started.request(messages));
        }

        @Override
        public void cancel(@Nullable String message, @Nullable Throwable cause) {
            then(started -> started.cancel(message, cause));
        }

        @Override
        public void halfClose() {
            then(ClientCall::halfClose);
        }

        @Override
        public void sendMessage(Q message) {
            then(started -> started.sendMessage(message));
        }

        @Override
        public void setMessageCompression(boolean enabled) {
            then(started -> started.setMessageCompression(enabled));
        }

        @Override
        public boolean isReady() {
            synchronized (lock) {
                return kept == null && !refused && call.isReady();
            }
        }
    }
}
