package io.github.ratelimit.spring.client;

import io.github.ratelimit.spring.call.CallRunner;
import io.github.ratelimit.spring.definition.internal.RuleSlots;
import io.github.ratelimit.spring.internal.FromRedis;
import java.io.IOException;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * The outbound limits on the HTTP clients: before a call that matches a rule, its place in the rules' budgets (waiting
 * as they allow, else the refusal is thrown and nothing is sent), then the slots of the rules' concurrency limits
 * (refused: thrown, nothing sent); after the answer, the slots given back with its outcome and the pause that a 429 or
 * 503 with {@code Retry-After} asks for, before the caller sees the answer.
 */
public final class OutboundClients {

    private OutboundClients() {}

    /** For {@code RestClient} and {@code RestTemplate}: the calling thread waits. */
    public static final class Blocking implements ClientHttpRequestInterceptor {

        private final OutboundLimits limits;

        public Blocking(OutboundLimits limits) {
            this.limits = limits;
        }

        @Override
        public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
                throws IOException {
            OutboundLimits.Match match = limits.match(request.getMethod().name(), request.getURI());
            if (match == null) {
                return execution.execute(request, body);
            }
            return java.util.Objects.requireNonNull(
                    CallRunner.run(limits.start(match), CallRunner.Refused.thrown(), end -> {
                        RuleSlots.Held slots = limits.take(match);
                        ClientHttpResponse response;
                        try {
                            response = execution.execute(request, body);
                        } catch (IOException | RuntimeException e) {
                            slots.failed();
                            throw e;
                        }
                        slots.answered(response.getStatusCode().value());
                        limits.answered(match, response.getStatusCode().value(), response.getHeaders())
                                .toCompletableFuture()
                                .join();
                        return response;
                    }));
        }
    }

    /** For {@code WebClient}: no thread waits. */
    public static final class NonBlocking implements ExchangeFilterFunction {

        private final OutboundLimits limits;

        public NonBlocking(OutboundLimits limits) {
            this.limits = limits;
        }

        @Override
        public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
            OutboundLimits.Match match = limits.match(request.method().name(), request.url());
            if (match == null) {
                return next.exchange(request);
            }
            return CallRunner.mono(limits.start(match), end -> FromRedis.mono(limits.takeAsync(match))
                    .flatMap(slots -> next.exchange(request)
                            .doOnNext(response ->
                                    slots.answered(response.statusCode().value()))
                            .doOnError(error -> slots.failed())
                            .doOnCancel(slots::failed)
                            .flatMap(response -> FromRedis.mono(limits.answered(
                                            match,
                                            response.statusCode().value(),
                                            response.headers().asHttpHeaders()))
                                    .thenReturn(response))));
        }
    }
}
