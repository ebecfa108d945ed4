package io.github.ratelimit.sample.protocols;

import io.github.ratelimit.annotation.RateLimited;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.graphql.data.method.annotation.Argument;
import org.springframework.graphql.data.method.annotation.ContextValue;
import org.springframework.graphql.data.method.annotation.QueryMapping;
import org.springframework.graphql.server.WebGraphQlInterceptor;
import org.springframework.graphql.server.WebGraphQlRequest;
import org.springframework.graphql.server.WebGraphQlResponse;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Mono;

/**
 * {@code quote(symbol: String!): Quote} at {@code /graphql}, limited to 5 a second per {@code X-User-Id} header. A
 * refusal is a GraphQL error of this field ({@code classification: "RATE_LIMITED"}, {@code retryAfter} in seconds);
 * the operation's other fields still resolve.
 */
@Controller
public class QuoteController {

    public record Quote(String symbol, BigDecimal price) {}

    @QueryMapping
    @RateLimited(name = "quote", limit = 5, windowMs = 1_000, key = "#userId")
    public Quote quote(@Argument String symbol, @ContextValue(name = UserIdInContext.KEY) String userId) {
        // a made-up price that stays the same for a symbol
        BigDecimal price = BigDecimal.valueOf(Math.floorMod(symbol.hashCode(), 100_000), 2)
                .add(BigDecimal.TEN)
                .setScale(2, RoundingMode.UNNECESSARY);
        return new Quote(symbol, price);
    }

    /** Puts the request's {@code X-User-Id} header (or {@code anonymous}) in the GraphQL context as {@code userId}. */
    @Component
    static class UserIdInContext implements WebGraphQlInterceptor {

        static final String KEY = "userId";

        @Override
        public Mono<WebGraphQlResponse> intercept(WebGraphQlRequest request, Chain chain) {
            @Nullable String user = request.getHeaders().getFirst("X-User-Id");
            String id = user == null || user.isBlank() ? "anonymous" : user.trim();
            request.configureExecutionInput(
                    (input, builder) -> builder.graphQLContext(Map.of(KEY, id)).build());
            return chain.next(request);
        }
    }
}
