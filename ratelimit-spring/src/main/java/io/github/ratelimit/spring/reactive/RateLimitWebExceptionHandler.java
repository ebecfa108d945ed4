package io.github.ratelimit.spring.reactive;

import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.spring.web.Refusals;
import java.net.URI;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.reactive.result.view.ViewResolver;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Answers the starter's refusals on the reactive side, from the web filter and from handler methods alike, with the
 * same answers as the servlet side's exception handlers: 429 with RateLimit fields, 400 for a missing key, 400/404/409
 * for a refused single-use token, 409 for a busy lock, 503 when Redis could not decide. Ordered before Spring Boot's
 * error handler; an application's own {@code @ExceptionHandler} for a handler method still wins. Other errors pass.
 */
public final class RateLimitWebExceptionHandler implements WebExceptionHandler, Ordered {

    /** Before Spring Boot's {@code ErrorWebExceptionHandler} (-1). */
    public static final int ORDER = -2;

    private final List<HttpMessageWriter<?>> writers;
    private final boolean allPolicies;
    private final Refusals.UnresolvedKeys unresolvedKeys = new Refusals.UnresolvedKeys();

    /**
     * @param writers the application's codecs' writers, for the problem body
     * @param allPolicies whether the RateLimit fields carry every item of the request's decisions
     */
    public RateLimitWebExceptionHandler(List<HttpMessageWriter<?>> writers, boolean allPolicies) {
        this.writers = List.copyOf(writers);
        this.allPolicies = allPolicies;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable error) {
        ResponseEntity<ProblemDetail> answer = Refusals.answer(
                error,
                URI.create(exchange.getRequest().getPath().value()),
                () -> ReactiveCallerContext.record(exchange, ((RateLimitExceededException) error).decision()),
                allPolicies,
                unresolvedKeys);
        if (answer == null || exchange.getResponse().isCommitted()) {
            return Mono.error(error);
        }
        return ServerResponse.status(answer.getStatusCode())
                .headers(headers -> headers.addAll(answer.getHeaders()))
                .bodyValue(java.util.Objects.requireNonNull(answer.getBody()))
                .flatMap(response -> response.writeTo(exchange, new ServerResponse.Context() {
                    @Override
                    public List<HttpMessageWriter<?>> messageWriters() {
                        return writers;
                    }

                    @Override
                    public List<ViewResolver> viewResolvers() {
                        return List.of();
                    }
                }));
    }
}
