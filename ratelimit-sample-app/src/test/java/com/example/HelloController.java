package com.example;

import io.github.ratelimit.annotation.RateLimited;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
class HelloController {

    @GetMapping("/api/hello")
    @RateLimited(limit = 5, windowMs = 1000, name = "hello") // 5 per second per client (principal, else IP)
    Map<String, String> hello() {
        return Map.of("message", "hello");
    }
}
