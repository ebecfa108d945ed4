package io.github.ratelimit.sample.reactive;

import io.github.ratelimit.annotation.RateLimited;
import java.util.Map;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import reactor.core.publisher.Mono;

/**
 * Limits on what the application spends: a call that waits for a slot instead of being refused, outbound calls under
 * one budget for every instance, and costs charged after the call.
 */
@RestController
class SpendController {

    private final WebClient.Builder clients;
    private final Environment environment;
    private volatile WebClient stub;

    SpendController(WebClient.Builder clients, Environment environment) {
        this.clients = clients;
        this.environment = environment;
    }

    /** Stands in for a third-party API with a quota: 3 calls per second for all callers together. */
    @GetMapping("/stub/weather")
    @RateLimited(limit = 4, windowMs = 1000, name = "stub-weather", key = "'everyone'")
    Mono<Map<String, Integer>> stubWeather() {
        return Mono.just(Map.of("temperature", 21));
    }

    /**
     * Calls the stub on this instance through a client built from Boot's builder, under the outbound rule
     * {@code weather} (2 per second shared by every instance, waiting up to 10 s for a slot on a timer): the stub's
     * answer, or 502 if the stub refused.
     */
    @GetMapping("/api/weather")
    Mono<ResponseEntity<String>> weather() {
        return stub().get()
                .uri("/stub/weather")
                .retrieve()
                .bodyToMono(String.class)
                .map(body -> ResponseEntity.ok()
                        .contentType(MediaType.APPLICATION_JSON)
                        .body(body))
                .onErrorResume(
                        WebClientResponseException.TooManyRequests.class,
                        refused -> Mono.just(
                                ResponseEntity.status(HttpStatus.BAD_GATEWAY).build()));
    }

    private WebClient stub() {
        WebClient client = stub;
        if (client == null) {
            client = clients.baseUrl("http://localhost:" + environment.getProperty("local.server.port"))
                    .build();
            stub = client;
        }
        return client;
    }

    /**
     * Five calls per second per client, and a refused call waits up to five seconds for its slot (on a timer: no thread
     * waits): twenty calls at once all succeed, spread over about three seconds.
     */
    @GetMapping("/api/wait")
    @RateLimited(limit = 5, windowMs = 1000, name = "wait", waitMs = 5000)
    Mono<Map<String, String>> waited() {
        return Mono.just(Map.of("message", "your turn"));
    }

    /** A prompt to complete. */
    record Prompt(String prompt) {}

    /** What a completion used. */
    record Completion(long tokens) {}

    /**
     * Stands in for a language model: "uses" 100 tokens per word of the prompt. Each user has 1,000 tokens per minute,
     * charged after the call by what it used (the Mono's value): a call is admitted while anything is left, so a user
     * sending 3-word prompts gets four answers (the fourth takes the budget past zero), then 429.
     */
    @PostMapping("/api/complete")
    @RateLimited(limit = 1000, windowMs = 60_000, name = "complete-tokens", key = "#userId", charge = "#result.tokens")
    Mono<Completion> complete(@RequestHeader("X-User-Id") String userId, @RequestBody Prompt prompt) {
        return Mono.fromSupplier(() -> new Completion(100L * words(prompt)));
    }

    static long words(Prompt prompt) {
        String text =
                prompt == null || prompt.prompt() == null ? "" : prompt.prompt().strip();
        return text.isEmpty() ? 0 : text.split("\\s+").length;
    }
}
