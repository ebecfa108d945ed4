package io.github.ratelimit.sample.kotlin

import io.github.ratelimit.annotation.Locked
import io.github.ratelimit.annotation.RateLimited
import io.github.ratelimit.annotation.SingleUse
import io.github.ratelimit.core.locks.LockManager.LockHandle
import io.github.ratelimit.core.tokens.SingleUseTokens
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption
import java.time.Duration
import kotlinx.coroutines.delay
import kotlinx.coroutines.future.await
import org.springframework.http.HttpStatus
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestHeader
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.ResponseStatus
import org.springframework.web.bind.annotation.RestController

@RestController
class TokenController(private val tokens: SingleUseTokens) {

    /** Issues a token for one VM spawn; issuing costs work, so at most one per second per user (else per IP). */
    @PostMapping("/api/tokens")
    @ResponseStatus(HttpStatus.CREATED)
    @RateLimited(limit = 1, windowMs = 1_000, name = "issue-token", key = ["#userId != null ? 'user:' + #userId : 'ip:' + #ip"])
    suspend fun issue(
        @RequestBody(required = false) metadata: Map<String, Any?>?,
        @RequestHeader(name = "X-User-Id", required = false) userId: String?,
    ): Map<String, Any> {
        val values = metadata.orEmpty().mapValues { (_, value) -> value.toString() }
        val issued = tokens.issueAsync("spawn-vm", values, TOKEN_TTL, 1).await()
        return mapOf("token" to issued.token(), "expiresInSeconds" to issued.ttl().toSeconds())
    }

    /** Works once per token: 200 with the metadata given at issue time, then 409. */
    @GetMapping("/api/spawn-vm")
    @SingleUse(purpose = "spawn-vm", token = "#token")
    suspend fun spawn(@RequestParam(required = false) token: String?, consumed: TokenConsumption): Map<String, Any> =
        mapOf("spawned" to true, "metadata" to consumed.metadata())

    companion object {
        val TOKEN_TTL: Duration = Duration.ofMinutes(10)
    }
}

@RestController
class WorkerController {

    /**
     * Runs a simulated worker for `durationMs` (default 2000, capped at 30000) while holding the user's lock: one worker
     * per user at a time, on any instance; held until the coroutine completes, fails or is cancelled (a client that
     * hangs up frees it), renewed while it runs, for at most 40 s in all.
     */
    @PostMapping("/api/workers/{userId}")
    @Locked(name = "worker", key = "#userId", leaseMs = 5_000, maxLifetimeMs = 40_000)
    suspend fun work(
        @PathVariable userId: String,
        @RequestParam(defaultValue = "2000") durationMs: Long,
        lock: LockHandle,
    ): Map<String, Any> {
        val duration = durationMs.coerceIn(0, MAX_DURATION_MS)
        delay(duration) // the simulated work: the coroutine suspends, no thread waits
        return mapOf(
            "userId" to userId,
            "fencingToken" to lock.fencingToken(),
            "durationMs" to duration,
            "stillHeld" to lock.isHeld,
        )
    }

    companion object {
        const val MAX_DURATION_MS = 30_000L
    }
}
