package io.github.ratelimit.sample.reactive;

import io.github.ratelimit.annotation.RateLimited;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** Limited by the path rule in application.yml alone (/api/public/**: 20 per minute per client). */
@RestController
class PublicController {

    @GetMapping("/api/public/ping")
    Mono<String> ping() {
        return Mono.just("pong");
    }

    /** Under the path rule and an annotation too: both are enforced, and the headers describe both. */
    @GetMapping("/api/public/burst")
    @RateLimited(limit = 3, windowMs = 1_000, name = "burst")
    Mono<Map<String, String>> burst() {
        return Mono.just(Map.of("burst", "ok"));
    }
}
