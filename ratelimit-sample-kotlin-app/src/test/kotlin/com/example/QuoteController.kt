package com.example

import io.github.ratelimit.annotation.Locked
import io.github.ratelimit.annotation.RateLimited
import io.github.ratelimit.core.locks.LockManager.LockHandle
import kotlinx.coroutines.delay
import org.springframework.web.bind.annotation.*

@RestController
class QuoteController {
    @GetMapping("/api/quote")
    @RateLimited(limit = 2, windowMs = 10_000, key = ["#ip"], fallback = "cachedQuote")
    suspend fun quote(): Map<String, Any> = mapOf("quote" to "fresh")
    suspend fun cachedQuote(): Map<String, Any> = mapOf("quote" to "cached")       // instead of a 429

    @PostMapping("/api/workers/{userId}")
    @Locked(name = "worker", key = "#userId", leaseMs = 5_000)                      // 409 while another runs
    suspend fun work(@PathVariable userId: String, lock: LockHandle): Long {
        delay(2_000)                                                                // held all along
        return lock.fencingToken()
    }
}
