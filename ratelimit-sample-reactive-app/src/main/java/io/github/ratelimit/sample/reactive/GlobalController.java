package io.github.ratelimit.sample.reactive;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.annotation.RateLimited;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * One limit for every caller together, on every instance: 50 a second, leased. Each instance takes permits from Redis
 * in leases of at most half the limit and decides from them in the JVM, so Redis sees a few script calls a second, not
 * one per request; a second never admits more than 50 across the instances.
 */
@RestController
class GlobalController {

    @GetMapping("/api/global")
    @RateLimited(
            name = "global",
            limit = 50,
            windowMs = 1_000,
            algorithm = Algorithm.FIXED_WINDOW,
            lease = 0.5,
            key = "'everyone'")
    Mono<Map<String, String>> global() {
        return Mono.just(Map.of("global", "ok"));
    }
}
