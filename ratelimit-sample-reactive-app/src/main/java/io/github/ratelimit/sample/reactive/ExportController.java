package io.github.ratelimit.sample.reactive;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.RetryAdvice;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * One global limit shared by every caller (a single identifier, not per IP): 5 exports per second. Refused callers
 * are told staggered retry times, one slot (200 ms) apart, so that they come back spread out instead of all at once.
 * {@code /api/export/unstaggered} is the same limit with the earliest-time advice, for comparison.
 */
@RestController
class ExportController {

    @GetMapping("/api/export")
    @RateLimited(limit = 5, windowMs = 1_000, key = "'everyone'", name = "export", retryAdvice = RetryAdvice.STAGGERED)
    Mono<Map<String, Object>> export() {
        return Mono.just(Map.of("exported", true));
    }

    @GetMapping("/api/export/unstaggered")
    @RateLimited(
            limit = 5,
            windowMs = 1_000,
            key = "'everyone'",
            name = "export-unstaggered",
            retryAdvice = RetryAdvice.EARLIEST)
    Mono<Map<String, Object>> exportUnstaggered() {
        return Mono.just(Map.of("exported", true));
    }
}
