package io.github.ratelimit.sample.reactive;

import io.github.ratelimit.annotation.RateLimited;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

@RestController
class HelloController {

    /** Five calls per second per client (the principal, else the IP address), decided when the answer is subscribed. */
    @GetMapping("/api/hello")
    @RateLimited(limit = 5, windowMs = 1000, name = "hello")
    Mono<Map<String, String>> hello() {
        return Mono.just(Map.of("message", "hello"));
    }
}
