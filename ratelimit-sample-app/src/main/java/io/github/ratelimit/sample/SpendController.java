package io.github.ratelimit.sample;

import io.github.ratelimit.annotation.RateLimited;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
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

    /** A prompt to complete. */
    record Prompt(String prompt) {}

    /** What a completion used. */
    record Completion(long tokens) {}

    /**
     * Stands in for a language model: "uses" 100 tokens per word of the prompt. Each user has 1,000 tokens per minute,
     * charged after the call by what it used: a call is admitted while anything is left, so a user sending 3-word
     * prompts gets four answers (the fourth takes the budget past zero), then 429.
     */
    @PostMapping("/api/complete")
    @RateLimited(limit = 1000, windowMs = 60_000, name = "complete-tokens", key = "#userId", charge = "#result.tokens")
    Completion complete(@RequestHeader("X-User-Id") String userId, @RequestBody Prompt prompt) {
        return new Completion(100L * words(prompt));
    }

    static long words(Prompt prompt) {
        String text =
                prompt == null || prompt.prompt() == null ? "" : prompt.prompt().strip();
        return text.isEmpty() ? 0 : text.split("\\s+").length;
    }
}
