package io.github.ratelimit.kotlin

import io.github.ratelimit.annotation.ConcurrencyLimited
import io.github.ratelimit.annotation.Locked
import io.github.ratelimit.annotation.RateLimited
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration
import io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration
import io.github.ratelimit.fixtures.SharedRedis
import java.util.UUID
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.delay
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.WebApplicationContextRunner
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration
import org.springframework.mock.web.MockHttpServletResponse
import org.springframework.test.web.servlet.MockMvc
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders
import org.springframework.test.web.servlet.setup.MockMvcBuilders
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RestController

/**
 * Annotated `suspend fun` handlers on Spring MVC, with real Redis: the caller's address reaches the key (`#ip`), 429
 * past the limit, a lock held for the whole coroutine (a second call is 409 while the first runs; before, the lock was
 * released 1.4 ms after it was taken and both calls were 200), and a concurrency slot held for the whole coroutine.
 */
class CoroutineMvcTests {

    @RestController
    class Api {
        val inBody = AtomicInteger()
        val mostInBody = AtomicInteger()

        @GetMapping("/k/hello")
        @RateLimited(limit = 2, windowMs = 60_000, key = ["#ip"])
        suspend fun hello(): String {
            delay(5)
            return "hello"
        }

        @PostMapping("/k/workers/{id}")
        @Locked(name = "k-mvc-worker", key = "#id", leaseMs = 30_000)
        suspend fun work(@PathVariable id: String): String {
            delay(600)
            return "done $id"
        }

        @PostMapping("/k/imports/{id}")
        @ConcurrencyLimited(name = "k-mvc-imports", max = 1, key = "#id")
        suspend fun import(@PathVariable id: String): String {
            mostInBody.accumulateAndGet(inBody.incrementAndGet(), ::maxOf)
            delay(600)
            inBody.decrementAndGet()
            return "imported $id"
        }
    }

    private val runner = WebApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                AopAutoConfiguration::class.java,
                WebMvcAutoConfiguration::class.java,
                RateLimitRedissonAutoConfiguration::class.java,
                RateLimitRedisAutoConfiguration::class.java,
                RateLimitAutoConfiguration::class.java,
                RateLimitAopAutoConfiguration::class.java,
                RateLimitWebAutoConfiguration::class.java,
            ),
        )
        .withPropertyValues(
            "spring.data.redis.url=" + SharedRedis.get().url(),
            "ratelimit.redis.require-at-startup=true",
            "ratelimit.redis.connect-timeout=20s", // the first connection on a busy machine
            "ratelimit.key-prefix=kotlin-mvc-" + UUID.randomUUID() + ":",
        )
        .withBean(Api::class.java)

    private fun call(mvc: MockMvc, method: String, path: String, address: String = "10.0.0.1"): MockHttpServletResponse {
        val request = if (method == "POST") MockMvcRequestBuilders.post(path) else MockMvcRequestBuilders.get(path)
        var result = mvc.perform(request.with { it.remoteAddr = address; it }).andReturn()
        if (result.request.isAsyncStarted) {
            result = mvc.perform(MockMvcRequestBuilders.asyncDispatch(result)).andReturn()
        }
        return result.response
    }

    @Test
    fun aSuspendHandlerIsLimitedPerCallerAddress() {
        runner.run { context ->
            assertThat(context).hasNotFailed()
            val mvc = MockMvcBuilders.webAppContextSetup(context).build()
            repeat(2) { assertThat(call(mvc, "GET", "/k/hello").status).isEqualTo(200) }
            val refused = call(mvc, "GET", "/k/hello")
            assertThat(refused.status).isEqualTo(429)
            assertThat(refused.getHeader("Retry-After")).isNotNull()
            // another address has its own budget: the caller's address reached the key
            assertThat(call(mvc, "GET", "/k/hello", "10.0.0.2").status).isEqualTo(200)
        }
    }

    @Test
    fun aSuspendHandlerHoldsItsLockAndSlotWhileItRuns() {
        runner.run { context ->
            val mvc = MockMvcBuilders.webAppContextSetup(context).build()
            val api = context.getBean(Api::class.java)
            for (path in listOf("/k/workers/", "/k/imports/")) {
                val id = UUID.randomUUID().toString()
                // warmed up first: a cold first call spends longer in class loading than its body takes
                assertThat(call(mvc, "POST", path + "warm-" + id).status).isEqualTo(200)
                val first = CompletableFuture.supplyAsync { call(mvc, "POST", path + id).status }
                Thread.sleep(250) // the first call's coroutine runs for 600 ms
                val second = call(mvc, "POST", path + id).status
                assertThat(first.get()).`as`(path).isEqualTo(200)
                assertThat(second).`as`(path).isIn(409, 429)
                assertThat(call(mvc, "POST", path + id).status).`as`("$path once the first ended").isEqualTo(200)
            }
            assertThat(api.mostInBody.get()).isEqualTo(1)
        }
    }
}
