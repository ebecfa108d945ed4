package io.github.ratelimit.sample;

import io.github.ratelimit.annotation.RateLimited;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Limits on what the application spends: a call that waits for a slot instead of being refused. */
@RestController
class SpendController {

    /**
     * Five calls per second per client, and a refused call waits up to five seconds for its slot: twenty calls at once
     * all succeed, spread over about three seconds.
     */
    @GetMapping("/api/wait")
    @RateLimited(limit = 5, windowMs = 1000, name = "wait", waitMs = 5000)
    Map<String, String> waited() {
        return Map.of("message", "your turn");
    }
}
