package io.github.ratelimit.sample.kotlin

import io.github.ratelimit.annotation.Algorithm
import io.github.ratelimit.annotation.ConcurrencyLimited
import io.github.ratelimit.annotation.CountOn
import io.github.ratelimit.annotation.NotRateLimited
import io.github.ratelimit.annotation.RateLimited
import io.github.ratelimit.annotation.RetryAdvice
import io.github.ratelimit.core.KeyResolver
import kotlinx.coroutines.delay
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.http.HttpStatus
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestHeader
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.RestController

/** A composed annotation: the sample's API limit written once, 30 calls per minute per client and method. */
@Target(AnnotationTarget.CLASS, AnnotationTarget.FUNCTION)
@Retention(AnnotationRetention.RUNTIME)
@MustBeDocumented
@RateLimited(limit = 30, windowMs = 60_000)
annotation class ApiLimit

@RestController
class HelloController {

    /** Five calls per second per client (the principal, else the IP address); the coroutine runs only once admitted. */
    @GetMapping("/api/hello")
    @RateLimited(limit = 5, windowMs = 1000, name = "hello")
    suspend fun hello(): Map<String, String> = mapOf("message" to "hello")
}

@RestController
class SearchController {

    /**
     * 10 per second, 120 per minute and 240 per hour, for the client IP and, when the caller names one, for the user
     * id: six counters decided in one Redis round trip, all or nothing.
     */
    @GetMapping("/api/search")
    @RateLimited(limit = 10, windowMs = 1_000, key = ["#ip", "#userId ?: {}"], name = "search")
    @RateLimited(limit = 120, windowMs = 60_000, key = ["#ip", "#userId ?: {}"], name = "search")
    @RateLimited(limit = 240, windowMs = 3_600_000, key = ["#ip", "#userId ?: {}"], name = "search")
    suspend fun search(
        @RequestParam(defaultValue = "") q: String,
        @RequestHeader(name = "X-User-Id", required = false) userId: String?,
    ): Map<String, Any> = mapOf("query" to q, "results" to listOf("$q 1", "$q 2"))
}

/** Limited by the path rule in application.yml alone (the rule `public` under /api/public: 20 per minute per client). */
@RestController
class PublicController {

    @GetMapping("/api/public/ping")
    suspend fun ping(): String = "pong"

    /** Under the path rule and an annotation too: both are enforced, and the headers describe both. */
    @GetMapping("/api/public/burst")
    @RateLimited(limit = 3, windowMs = 1_000, name = "burst")
    suspend fun burst(): Map<String, String> = mapOf("burst" to "ok")
}

/**
 * One limit for every caller together, on every instance: 50 a second, leased. Each instance takes permits from Redis
 * in leases of at most half the limit and decides from them in the JVM; a second never admits more than 50.
 */
@RestController
class GlobalController {

    @GetMapping("/api/global")
    @RateLimited(
        name = "global",
        limit = 50,
        windowMs = 1_000,
        algorithm = Algorithm.FIXED_WINDOW,
        lease = 0.5,
        key = ["'everyone'"],
    )
    suspend fun global(): Map<String, String> = mapOf("global" to "ok")
}

/** The body of POST /api/login. */
data class LoginRequest(val username: String?, val password: String?)

/**
 * The limits written every day: a composed annotation on the class (each public method 30 per minute per client, one
 * exempt), a fallback, a login that counts failures only, and a concurrency limit.
 */
@RestController
@ApiLimit
class EverydayController {

    @GetMapping("/api/catalog/{id}")
    suspend fun item(@PathVariable id: String): Map<String, Any> = mapOf("id" to id)

    @GetMapping("/api/catalog/health")
    @NotRateLimited
    suspend fun health(): Map<String, Any> = mapOf("status" to "up")

    /** 2 fresh quotes per 10 s per client; beyond that, the cached one instead of a 429. */
    @GetMapping("/api/quote")
    @RateLimited(limit = 2, windowMs = 10_000, name = "quote", fallback = "cachedQuote")
    suspend fun quote(): Map<String, Any> = mapOf("quote" to "fresh", "fresh" to true)

    /** The fallback is a suspend fun too. */
    suspend fun cachedQuote(): Map<String, Any> = mapOf("quote" to "cached", "fresh" to false)

    /** The password is "secret"; 3 failed logins per minute for a user name, then 429; successes never count. */
    @PostMapping("/api/login")
    @RateLimited(limit = 3, windowMs = 60_000, name = "login", key = ["#login.username"], countOn = CountOn.FAILURE)
    suspend fun login(@RequestBody login: LoginRequest): ResponseEntity<Map<String, Any?>> =
        if (login.password == "secret") {
            ResponseEntity.ok(mapOf("user" to login.username))
        } else {
            ResponseEntity.status(HttpStatus.UNAUTHORIZED).body(mapOf("error" to "wrong password"))
        }

    /** About 1 s of work (the coroutine suspends, no thread waits), at most 2 in progress per client IP. */
    @GetMapping("/api/slow")
    @ConcurrencyLimited(max = 2, key = "#ip", name = "slow")
    @NotRateLimited
    suspend fun slow(): Map<String, Any> {
        delay(1_000)
        return mapOf("slow" to "done")
    }

    /**
     * The inventory service, a slow dependency whose capacity nobody told us (about 200 ms a call): one adaptive limit
     * for the whole fleet, learnt from its latency, at most 40; what is over it is refused at once with 429.
     */
    @GetMapping("/api/inventory")
    @ConcurrencyLimited(max = 40, adaptive = true, initial = 4, key = "'inventory'", name = "inventory")
    @NotRateLimited
    suspend fun inventory(): Map<String, Any> {
        delay(200)
        return mapOf("inventory" to "in stock")
    }
}

/**
 * A login limited by a path rule, not an annotation (application.yml: the rule `basic-login` with `count-on: failure`):
 * the password is "secret"; 3 failed logins per minute for a user (the X-User header), then 429.
 */
@RestController
class BasicLoginController {

    @PostMapping("/api/basic-login")
    suspend fun login(
        @RequestHeader("X-User") user: String,
        @RequestHeader(name = "X-Password", required = false) password: String?,
    ): ResponseEntity<Map<String, Any>> =
        if (password == "secret") {
            ResponseEntity.ok(mapOf("user" to user))
        } else {
            ResponseEntity.status(HttpStatus.UNAUTHORIZED).body(mapOf("error" to "wrong password"))
        }
}

/**
 * One global limit shared by every caller: 5 exports per second. Refused callers are told staggered retry times, one
 * slot (200 ms) apart; `/api/export/unstaggered` is the same limit with the earliest-time advice, for comparison.
 */
@RestController
class ExportController {

    @GetMapping("/api/export")
    @RateLimited(limit = 5, windowMs = 1_000, key = ["'everyone'"], name = "export", retryAdvice = RetryAdvice.STAGGERED)
    suspend fun export(): Map<String, Any> = mapOf("exported" to true)

    @GetMapping("/api/export/unstaggered")
    @RateLimited(
        limit = 5,
        windowMs = 1_000,
        key = ["'everyone'"],
        name = "export-unstaggered",
        retryAdvice = RetryAdvice.EARLIEST,
    )
    suspend fun exportUnstaggered(): Map<String, Any> = mapOf("exported" to true)
}

/**
 * Limited per API key by the caller's plan (application.yml: ratelimit.plans): sample-free-key is on free (2 per
 * 10 s), sample-pro-key on pro (20 per 10 s), any other key on the default plan (1 per 10 s); no key is a 400.
 */
@RestController
class ReportsController {

    @GetMapping("/api/reports")
    @RateLimited(plans = "reports", key = ["#apiKey"])
    suspend fun reports(@RequestHeader(name = "X-API-Key", required = false) apiKey: String?): Map<String, Any> =
        mapOf("report" to "monthly")
}

/** An application's own kind of key: the `tenant` bean (the X-Tenant-Id header). 3 per minute per tenant. */
@RestController
class TenantController {

    @GetMapping("/api/tenant-usage")
    @RateLimited(name = "tenant-usage", limit = 3, windowMs = 60_000, key = ["tenant"])
    suspend fun usage(): Map<String, Any> = mapOf("usage" to "ok")
}

@Configuration(proxyBeanMethods = false)
class Keys {

    @Bean
    fun tenant(): KeyResolver = KeyResolver { caller -> caller.header("X-Tenant-Id") }
}

/** The body of POST /api/pin-login. */
data class PinLogin(val user: String?, val pin: String?)

/**
 * The limits of an API product's price list and runbook: a quota per calendar month by plan (X-Api-Key; default plan 3
 * a month in UTC), a 60-second penalty box after three wrong PINs in a minute, and a budget of 10 per second whose last
 * 4 are kept for critical calls.
 */
@RestController
class PriceListController {

    @GetMapping("/api/monthly")
    @RateLimited(plans = "monthly", key = ["#apiKey"])
    suspend fun monthly(@RequestHeader(name = "X-Api-Key", required = false) apiKey: String?): Map<String, Any> =
        mapOf("quota" to "monthly")

    @PostMapping("/api/pin-login")
    @RateLimited(
        limit = 3,
        windowMs = 60_000,
        name = "pin-login",
        key = ["#login.user"],
        countOn = CountOn.FAILURE,
        penaltyMs = 60_000,
    )
    suspend fun pinLogin(@RequestBody login: PinLogin): ResponseEntity<Map<String, Any?>> =
        if (login.pin == "0000") {
            ResponseEntity.ok(mapOf("user" to login.user))
        } else {
            ResponseEntity.status(HttpStatus.UNAUTHORIZED).body(mapOf("error" to "wrong PIN"))
        }

    @GetMapping("/api/fleet/bulk")
    @RateLimited(limit = 10, windowMs = 1_000, name = "fleet", key = ["'fleet'"], share = 0.6)
    suspend fun bulk(): Map<String, Any> = mapOf("work" to "bulk")

    @GetMapping("/api/fleet/critical")
    @RateLimited(limit = 10, windowMs = 1_000, name = "fleet", key = ["'fleet'"], share = 1.0)
    suspend fun critical(): Map<String, Any> = mapOf("work" to "critical")
}
