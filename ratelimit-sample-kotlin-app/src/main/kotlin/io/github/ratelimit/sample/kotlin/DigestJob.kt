package io.github.ratelimit.sample.kotlin

import io.github.ratelimit.annotation.Locked
import java.util.concurrent.atomic.AtomicLong
import kotlinx.coroutines.future.await
import org.redisson.api.RedissonClient
import org.springframework.beans.factory.ObjectProvider
import org.springframework.context.annotation.Configuration
import org.springframework.scheduling.annotation.EnableScheduling
import org.springframework.scheduling.annotation.Scheduled
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.RestController

/**
 * A job named `digest` every second, run once per tick across every instance: a busy lock skips the run (no error), and
 * the lock stays taken 900 ms after the run started, so an instance whose schedule fires later in the same second finds
 * it taken. Its runs are counted in Redis, for all instances (in this instance's memory on the memory store, where there
 * is no Redis).
 */
@RestController
@Configuration(proxyBeanMethods = false)
@EnableScheduling
class DigestJob(redis: ObjectProvider<RedissonClient>) {

    private val redis: RedissonClient? = redis.ifAvailable

    /** Where the runs are counted on the memory store. */
    private val inMemory = AtomicLong()

    @Scheduled(fixedRate = 1_000)
    @Locked(name = "digest", minHoldMs = 900)
    fun digest() {
        countRun() // the job's short body
    }

    private fun countRun() {
        redis?.getAtomicLong(RUNS)?.incrementAndGet() ?: inMemory.incrementAndGet()
    }

    /** How many times the job ran so far, on every instance together. */
    @GetMapping("/api/jobs/digest")
    suspend fun runs(): Map<String, Any> =
        mapOf("runs" to (redis?.getAtomicLong(RUNS)?.async?.await() ?: inMemory.get()))

    companion object {
        const val RUNS = "sample:jobs:digest:runs"
    }
}
