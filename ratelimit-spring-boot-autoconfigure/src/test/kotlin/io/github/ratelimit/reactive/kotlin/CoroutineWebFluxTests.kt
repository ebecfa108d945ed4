package io.github.ratelimit.reactive.kotlin

import io.github.ratelimit.annotation.Locked
import io.github.ratelimit.annotation.RateLimited
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration
import io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration
import io.github.ratelimit.autoconfigure.aop.RateLimitArgumentResolversAutoConfiguration
import io.github.ratelimit.autoconfigure.reactive.RateLimitReactiveWebAutoConfiguration
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration
import io.github.ratelimit.test.support.NoBlockingCalls
import io.github.ratelimit.fixtures.SharedRedis
import java.util.UUID
import java.util.concurrent.CompletableFuture
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration
import org.springframework.test.web.reactive.server.WebTestClient
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RestController

/**
 * Annotated Kotlin `suspend fun` and `Flow` handlers on WebFlux, with real Redis and BlockHound: 429 past the limit
 * (not a 500 telling a coroutine to return Mono), a lock held while the coroutine runs (a second call is 409), and a
 * Flow limited per request; no event-loop thread blocks.
 */
@ExtendWith(NoBlockingCalls::class)
class CoroutineWebFluxTests {

    @RestController
    class Api {
        @GetMapping("/k/hello")
        @RateLimited(limit = 2, windowMs = 60_000, key = ["'k-hello'"])
        suspend fun hello(): String {
            delay(5)
            return "hello"
        }

        @GetMapping("/k/numbers")
        @RateLimited(limit = 1, windowMs = 60_000, key = ["'k-numbers'"])
        fun numbers(): Flow<Int> = flowOf(1, 2, 3)

        @PostMapping("/k/workers/{id}")
        @Locked(name = "k-worker", key = "#id", leaseMs = 30_000)
        suspend fun work(@PathVariable id: String): String {
            delay(600)
            return "done $id"
        }
    }

    private val runner = ReactiveWebApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                AopAutoConfiguration::class.java,
                JacksonAutoConfiguration::class.java,
                CodecsAutoConfiguration::class.java,
                WebFluxAutoConfiguration::class.java,
                HttpHandlerAutoConfiguration::class.java,
                RateLimitRedissonAutoConfiguration::class.java,
                RateLimitRedisAutoConfiguration::class.java,
                RateLimitAutoConfiguration::class.java,
                RateLimitAopAutoConfiguration::class.java,
                RateLimitReactiveWebAutoConfiguration::class.java,
                RateLimitArgumentResolversAutoConfiguration::class.java,
            ),
        )
        .withPropertyValues(
            "spring.data.redis.url=" + SharedRedis.get().url(),
            "ratelimit.redis.require-at-startup=true",
            "ratelimit.redis.connect-timeout=20s", // the first connection on a busy machine
            "ratelimit.key-prefix=kotlin-web-" + UUID.randomUUID() + ":",
        )
        .withBean(Api::class.java)

    @Test
    fun aSuspendHandlerAnswers429PastItsLimit() {
        runner.run { context ->
            assertThat(context).hasNotFailed()
            val client = WebTestClient.bindToApplicationContext(context).build()
            repeat(2) {
                client.get().uri("/k/hello").exchange().expectStatus().isOk.expectBody(String::class.java)
                    .isEqualTo("hello")
            }
            client.get().uri("/k/hello").exchange().expectStatus().isEqualTo(429)
                .expectHeader().exists("Retry-After")
        }
    }

    @Test
    fun aFlowHandlerIsLimitedPerRequest() {
        runner.run { context ->
            val client = WebTestClient.bindToApplicationContext(context).build()
            client.get().uri("/k/numbers").exchange().expectStatus().isOk
            client.get().uri("/k/numbers").exchange().expectStatus().isEqualTo(429)
        }
    }

    @Test
    fun aSuspendHandlerHoldsItsLockWhileItRuns() {
        runner.run { context ->
            val client = WebTestClient.bindToApplicationContext(context).build()
            val id = UUID.randomUUID().toString()
            // warmed up first: a cold first call spends longer in class loading than its body takes
            client.post().uri("/k/workers/warm-$id").exchange().expectStatus().isOk
            val first = CompletableFuture.supplyAsync {
                client.post().uri("/k/workers/$id").exchange().returnResult(String::class.java).status.value()
            }
            Thread.sleep(200) // the first call's coroutine is running (600 ms) and holds the lock
            val second = client.post().uri("/k/workers/$id").exchange().returnResult(String::class.java).status.value()
            assertThat(first.get()).isEqualTo(200)
            assertThat(second).isEqualTo(409)
            // once the first coroutine ended, the lock is free again
            client.post().uri("/k/workers/$id").exchange().expectStatus().isOk
        }
    }
}
