package com.example;

import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import java.time.Duration;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
class SpawnController {
    private final SingleUseTokens tokens;

    SpawnController(SingleUseTokens tokens) {
        this.tokens = tokens;
    }

    @PostMapping("/api/tokens")
    Map<String, String> issue() {
        return Map.of(
                "token",
                tokens.issue("spawn-vm", Map.of("size", "small"), Duration.ofMinutes(10))
                        .token());
    }

    @GetMapping("/api/spawn-vm")
    @SingleUse(purpose = "spawn-vm", token = "#token") // 400 missing or malformed, 404 unknown, 409 used
    Map<String, Object> spawn(@RequestParam(required = false) String token, TokenConsumption consumed) {
        return Map.of("spawned", true, "metadata", consumed.metadata());
    }
}
