package io.github.ratelimit.sample;

import io.github.ratelimit.annotation.ConcurrencyLimited;
import io.github.ratelimit.annotation.CountOn;
import io.github.ratelimit.annotation.NotRateLimited;
import io.github.ratelimit.annotation.RateLimited;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The limits written every day: a composed annotation on the class (each public method 30 per minute per client, one
 * exempt), a fallback, a login that counts failures only, and a concurrency limit.
 */
@RestController
@ApiLimit
public class EverydayController {

    @GetMapping("/api/catalog/{id}")
    public Map<String, Object> item(@PathVariable String id) {
        return Map.of("id", id);
    }

    @GetMapping("/api/catalog/health")
    @NotRateLimited
    public Map<String, Object> health() {
        return Map.of("status", "up");
    }

    /** 2 fresh quotes per 10 s per client; beyond that, the cached one instead of a 429. */
    @GetMapping("/api/quote")
    @RateLimited(limit = 2, windowMs = 10_000, name = "quote", fallback = "cachedQuote")
    public Map<String, Object> quote() {
        return Map.of("quote", "fresh", "fresh", true);
    }

    public Map<String, Object> cachedQuote() {
        return Map.of("quote", "cached", "fresh", false);
    }

    /**
     * The password is "secret"; 3 failed logins per minute for a user name, then 429 even with the right password;
     * successes never count.
     */
    @PostMapping("/api/login")
    @RateLimited(limit = 3, windowMs = 60_000, name = "login", key = "#login.username()", countOn = CountOn.FAILURE)
    public ResponseEntity<Map<String, Object>> login(@RequestBody LoginRequest login) {
        return "secret".equals(login.password())
                ? ResponseEntity.ok(Map.of("user", login.username()))
                : ResponseEntity.status(HttpStatus.UNAUTHORIZED).body(Map.of("error", "wrong password"));
    }

    /** About 1 s of work, at most 2 in progress per client IP, on any instance. */
    @GetMapping("/api/slow")
    @ConcurrencyLimited(max = 2, key = "#ip", name = "slow")
    @NotRateLimited
    public Map<String, Object> slow() throws InterruptedException {
        Thread.sleep(1_000); // the simulated work
        return Map.of("slow", "done");
    }

    /**
     * The inventory service, a slow dependency whose capacity nobody told us (about 200 ms a call): one adaptive limit
     * for the whole fleet, learnt from its latency, at most 40; what is over it is refused at once with 429.
     */
    @GetMapping("/api/inventory")
    @ConcurrencyLimited(max = 40, adaptive = true, initial = 4, key = "'inventory'", name = "inventory")
    @NotRateLimited
    public Map<String, Object> inventory() throws InterruptedException {
        Thread.sleep(200); // the simulated dependency
        return Map.of("inventory", "in stock");
    }
}
