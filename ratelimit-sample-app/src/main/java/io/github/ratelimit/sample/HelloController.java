package io.github.ratelimit.sample;

import io.github.ratelimit.annotation.RateLimited;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
class HelloController {

    /** Five calls per second per client (the principal, else the IP address), on an exact sliding window. */
    @GetMapping("/api/hello")
    @RateLimited(limit = 5, windowMs = 1000, name = "hello")
    Map<String, String> hello() {
        return Map.of("message", "hello");
    }
}
