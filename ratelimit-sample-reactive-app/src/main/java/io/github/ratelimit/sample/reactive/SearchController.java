package io.github.ratelimit.sample.reactive;

import io.github.ratelimit.annotation.RateLimited;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

@RestController
class SearchController {

    /**
     * 10 per second, 120 per minute and 240 per hour, for the client IP and, when the caller names one, for the user
     * id: six counters decided in one Redis round trip, all or nothing.
     */
    @GetMapping("/api/search")
    @RateLimited(
            limit = 10,
            windowMs = 1_000,
            key = {"#ip", "#userId ?: {}"},
            name = "search")
    @RateLimited(
            limit = 120,
            windowMs = 60_000,
            key = {"#ip", "#userId ?: {}"},
            name = "search")
    @RateLimited(
            limit = 240,
            windowMs = 3_600_000,
            key = {"#ip", "#userId ?: {}"},
            name = "search")
    Mono<Map<String, Object>> search(
            @RequestParam(defaultValue = "") String q,
            @RequestHeader(name = "X-User-Id", required = false) String userId) {
        return Mono.just(Map.of("query", q, "results", List.of(q + " 1", q + " 2")));
    }
}
