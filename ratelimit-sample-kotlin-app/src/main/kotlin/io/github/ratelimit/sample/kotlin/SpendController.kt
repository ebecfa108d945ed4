package io.github.ratelimit.sample.kotlin

import io.github.ratelimit.annotation.RateLimited
import org.springframework.core.env.Environment
import org.springframework.http.HttpStatus
import org.springframework.http.MediaType
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestHeader
import org.springframework.web.bind.annotation.RestController
import org.springframework.web.reactive.function.client.WebClient
import org.springframework.web.reactive.function.client.WebClientResponseException
import org.springframework.web.reactive.function.client.awaitBody

/** A prompt to complete. */
data class Prompt(val prompt: String?)

/** What a completion used. */
data class Completion(val tokens: Long)

/**
 * Limits on what the application spends: a call that waits for a slot instead of being refused, outbound calls under
 * one budget for every instance, and costs charged after the call.
 */
@RestController
class SpendController(private val clients: WebClient.Builder, private val environment: Environment) {

    @Volatile
    private var client: WebClient? = null

    // built on first use (the port is known once the server runs); a plain field, not a lazy delegate, whose class
    // springdoc's scan would read from the Kotlin library's jar on the first request
    private val stub: WebClient
        get() = client ?: clients.baseUrl("http://localhost:" + environment.getProperty("local.server.port"))
            .build()
            .also { client = it }

    /** Stands in for a third-party API with a quota: 4 calls per second for all callers together. */
    @GetMapping("/stub/weather")
    @RateLimited(limit = 4, windowMs = 1000, name = "stub-weather", key = ["'everyone'"])
    suspend fun stubWeather(): Map<String, Int> = mapOf("temperature" to 21)

    /**
     * Calls the stub through a client built from Boot's builder, under the outbound rule `weather` (2 per second
     * shared by every instance, waiting up to 10 s for a slot on a timer): the stub's answer, or 502 if it refused.
     */
    @GetMapping("/api/weather")
    suspend fun weather(): ResponseEntity<String> =
        try {
            val body = stub.get().uri("/stub/weather").retrieve().awaitBody<String>()
            ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body)
        } catch (refused: WebClientResponseException.TooManyRequests) {
            ResponseEntity.status(HttpStatus.BAD_GATEWAY).build()
        }

    /** Five calls per second per client; a refused call suspends up to five seconds for its slot (no thread waits). */
    @GetMapping("/api/wait")
    @RateLimited(limit = 5, windowMs = 1000, name = "wait", waitMs = 5000)
    suspend fun waited(): Map<String, String> = mapOf("message" to "your turn")

    /**
     * Stands in for a language model: "uses" 100 tokens per word of the prompt. Each user has 1,000 tokens per minute,
     * charged after the call by what it used (the result's `tokens`): four answers to 3-word prompts, then 429.
     */
    @PostMapping("/api/complete")
    @RateLimited(limit = 1000, windowMs = 60_000, name = "complete-tokens", key = ["#userId"], charge = "#result.tokens")
    suspend fun complete(@RequestHeader("X-User-Id") userId: String, @RequestBody prompt: Prompt?): Completion =
        Completion(100L * words(prompt))

    private fun words(prompt: Prompt?): Long {
        val text = prompt?.prompt?.trim().orEmpty()
        return if (text.isEmpty()) 0 else text.split(Regex("\\s+")).size.toLong()
    }
}
