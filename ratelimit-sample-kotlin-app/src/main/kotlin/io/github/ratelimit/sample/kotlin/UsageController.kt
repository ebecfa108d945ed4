package io.github.ratelimit.sample.kotlin

import io.github.ratelimit.spring.usage.RateLimitUsage
import io.github.ratelimit.core.Usage
import java.security.Principal
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.future.await
import kotlinx.coroutines.withContext
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestHeader
import org.springframework.web.bind.annotation.RestController

/** What the operator posts: whose key, which limit, how many units. */
data class Credit(val key: String?, val name: String?, val units: Long)

/**
 * A customer's own quota: `GET /api/usage` with `X-Api-Key` answers the key's monthly quota and its plan's report limit,
 * read without spending anything and without blocking; `POST /api/usage/credit` (the operator, see [OperatorSecurity])
 * grants a key more units of a limit for the current period, on every instance.
 */
@RestController
class UsageController(private val usage: RateLimitUsage) {

    @GetMapping("/api/usage")
    suspend fun usage(@RequestHeader(name = "X-Api-Key", required = false) apiKey: String?): ResponseEntity<Map<String, Any>> {
        if (apiKey.isNullOrBlank()) {
            return ResponseEntity.badRequest().body(mapOf("error" to "send your API key as X-Api-Key"))
        }
        val limits = LIMITS.flatMap { name -> describe(usage.ofAsync(name, null, apiKey).await()) }
        return ResponseEntity.ok(mapOf("limits" to limits))
    }

    @PostMapping("/api/usage/credit")
    suspend fun credit(@RequestBody credit: Credit, operator: Principal): ResponseEntity<Map<String, Any>> {
        val key = credit.key
        val name = credit.name
        if (key.isNullOrBlank() || name.isNullOrBlank() || credit.units < 1) {
            return ResponseEntity.badRequest().body(mapOf("error" to "give key, name and units (at least 1)"))
        }
        return try {
            // a credit waits until every instance applied it: off the event loop
            val granted = withContext(Dispatchers.IO) { usage.credit(name, key, credit.units, operator.name) }
            val read = usage.ofAsync(name, null, key).await()
            ResponseEntity.ok(mapOf("granted" to granted, "limits" to describe(read)))
        } catch (e: RateLimitUsage.UnknownLimitException) {
            ResponseEntity.status(if (e.incomplete()) 400 else 404).body(mapOf("error" to (e.message ?: "")))
        }
    }

    companion object {
        /** The plan groups an API key is counted under (application.yml: ratelimit.plans). */
        val LIMITS = listOf("monthly", "reports")

        /** Each window as the customer sees it: the limit's name, its quota, used, remaining, and when it resets. */
        fun describe(read: Usage): List<Map<String, Any>> =
            read.windows().map { window ->
                linkedMapOf(
                    "name" to window.name(),
                    "limit" to window.quota(),
                    "used" to window.used(),
                    "remaining" to window.remaining(),
                    "resetsAt" to window.resetsAt().toString(),
                )
            }
    }
}
