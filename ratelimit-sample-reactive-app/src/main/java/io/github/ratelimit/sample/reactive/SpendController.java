package io.github.ratelimit.sample.reactive;

import io.github.ratelimit.annotation.RateLimited;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** Limits on what the application spends: a call that waits for a slot instead of being refused. */
@RestController
class SpendController {

    /**
     * Five calls per second per client, and a refused call waits up to five seconds for its slot (on a timer: no thread
     * waits): twenty calls at once all succeed, spread over about three seconds.
     */
    @GetMapping("/api/wait")
    @RateLimited(limit = 5, windowMs = 1000, name = "wait", waitMs = 5000)
    Mono<Map<String, String>> waited() {
        return Mono.just(Map.of("message", "your turn"));
    }
}
