package io.github.ratelimit.sample.reactive;

import io.github.ratelimit.annotation.ConcurrencyLimited;
import io.github.ratelimit.annotation.CountOn;
import io.github.ratelimit.annotation.NotRateLimited;
import io.github.ratelimit.annotation.RateLimited;
import java.time.Duration;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The limits written every day: a composed annotation on the class (each public method 30 per minute per client, one
 * exempt), a fallback, a login that counts failures only, and a concurrency limit.
 */
@RestController
@ApiLimit
public class EverydayController {

    @GetMapping("/api/catalog/{id}")
    public Mono<Map<String, Object>> item(@PathVariable String id) {
        return Mono.just(Map.of("id", id));
    }

    @GetMapping("/api/catalog/health")
    @NotRateLimited
    public Mono<Map<String, Object>> health() {
        return Mono.just(Map.of("status", "up"));
    }

    /** 2 fresh quotes per 10 s per client; beyond that, the cached one instead of a 429. */
    @GetMapping("/api/quote")
    @RateLimited(limit = 2, windowMs = 10_000, name = "quote", fallback = "cachedQuote")
    public Mono<Map<String, Object>> quote() {
        return Mono.just(Map.of("quote", "fresh", "fresh", true));
    }

    public Mono<Map<String, Object>> cachedQuote() {
        return Mono.just(Map.of("quote", "cached", "fresh", false));
    }

    /**
     * The password is "secret"; 3 failed logins per minute for a user name, then 429 even with the right password;
     * successes never count.
     */
    @PostMapping("/api/login")
    @RateLimited(limit = 3, windowMs = 60_000, name = "login", key = "#login.username()", countOn = CountOn.FAILURE)
    public Mono<ResponseEntity<Map<String, Object>>> login(@RequestBody LoginRequest login) {
        return Mono.just(
                "secret".equals(login.password())
                        ? ResponseEntity.ok(Map.of("user", login.username()))
                        : ResponseEntity.status(HttpStatus.UNAUTHORIZED).body(Map.of("error", "wrong password")));
    }

    /** About 1 s of work (without holding a thread), at most 2 in progress per client IP, on any instance. */
    @GetMapping("/api/slow")
    @ConcurrencyLimited(max = 2, key = "#ip", name = "slow")
    @NotRateLimited
    public Mono<Map<String, Object>> slow() {
        return Mono.delay(Duration.ofSeconds(1)).thenReturn(Map.of("slow", "done"));
    }

    /**
     * The inventory service, a slow dependency whose capacity nobody told us (about 200 ms a call): one adaptive limit
     * for the whole fleet, learnt from its latency, at most 40; what is over it is refused at once with 429.
     */
    @GetMapping("/api/inventory")
    @ConcurrencyLimited(max = 40, adaptive = true, initial = 4, key = "'inventory'", name = "inventory")
    @NotRateLimited
    public Mono<Map<String, Object>> inventory() {
        return Mono.delay(Duration.ofMillis(200)).thenReturn(Map.of("inventory", "in stock"));
    }
}
