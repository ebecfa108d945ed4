package io.github.ratelimit.sample.reactive;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

@RestController
class TokenController {

    static final Duration TOKEN_TTL = Duration.ofMinutes(10);

    private final SingleUseTokens tokens;

    TokenController(SingleUseTokens tokens) {
        this.tokens = tokens;
    }

    /** Issues a token for one VM spawn; issuing costs work, so at most one per second per user (else per IP). */
    @PostMapping("/api/tokens")
    @ResponseStatus(HttpStatus.CREATED)
    @RateLimited(
            limit = 1,
            windowMs = 1_000,
            name = "issue-token",
            key = "#userId != null ? 'user:' + #userId : 'ip:' + #ip")
    Mono<Map<String, Object>> issue(
            @RequestBody(required = false) Map<String, Object> metadata,
            @RequestHeader(name = "X-User-Id", required = false) String userId) {
        Map<String, String> values = new LinkedHashMap<>();
        if (metadata != null) {
            metadata.forEach((name, value) -> values.put(name, String.valueOf(value)));
        }
        return Mono.fromCompletionStage(() -> tokens.issueAsync("spawn-vm", values, TOKEN_TTL, 1))
                .map(issued -> Map.of(
                        "token",
                        issued.token(),
                        "expiresInSeconds",
                        issued.ttl().toSeconds()));
    }

    /** Works once per token: 200 with the metadata given at issue time, then 409. */
    @GetMapping("/api/spawn-vm")
    @SingleUse(purpose = "spawn-vm", token = "#token")
    Mono<Map<String, Object>> spawn(@RequestParam(required = false) String token, TokenConsumption consumed) {
        return Mono.just(Map.of("spawned", true, "metadata", consumed.metadata()));
    }
}
