package io.github.ratelimit.kotlin

import io.github.ratelimit.annotation.ConcurrencyLimited
import io.github.ratelimit.annotation.CountOn
import io.github.ratelimit.annotation.Locked
import io.github.ratelimit.annotation.RateLimited
import java.time.Duration
import io.github.ratelimit.core.tokens.SingleUseTokenException
import io.github.ratelimit.core.tokens.SingleUseTokens
import io.github.ratelimit.annotation.SingleUse
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration
import io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException
import io.github.ratelimit.core.locks.LockNotAcquiredException
import io.github.ratelimit.core.RateLimitExceededException
import io.github.ratelimit.fixtures.SharedRedis
import java.util.UUID
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Deferred
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.stereotype.Component

/**
 * The annotations on Kotlin `suspend fun`s and on functions returning a `Flow`, with real Redis: the application
 * starts (SpEL keys see the declared parameters, never the Continuation); a lock is held until the coroutine ends, a
 * concurrency slot for the whole coroutine, a rate limit refuses past its limit, and a Flow is limited per
 * collection. Before, the start failed (`MethodExpressions`: index out of bounds), and with that patched a lock was
 * released 1.4 ms after it was taken while the body ran on.
 */
class CoroutineAnnotationsTests {

    @Component
    class Jobs {
        val inBody = AtomicInteger()
        val mostInBody = AtomicInteger()

        @Locked(name = "k-rebuild", key = "#customer", leaseMs = 10_000)
        suspend fun rebuild(customer: String): String {
            delay(400)
            return "rebuilt $customer"
        }

        @ConcurrencyLimited(name = "k-imports", max = 2, key = "#customer")
        suspend fun importFor(customer: String): String {
            mostInBody.accumulateAndGet(inBody.incrementAndGet(), ::maxOf)
            delay(300)
            inBody.decrementAndGet()
            return "imported $customer"
        }

        @RateLimited(limit = 2, windowMs = 60_000, key = ["#customer"], name = "k-exports")
        suspend fun export(customer: String): String {
            delay(5)
            return "exported $customer"
        }

        @RateLimited(limit = 3, windowMs = 60_000, key = ["#customer"], name = "k-stream")
        fun numbers(customer: String): Flow<Int> = flowOf(1, 2, 3)

        @RateLimited(limit = 2, windowMs = 60_000, key = ["#customer"], name = "k-logins", countOn = CountOn.FAILURE)
        suspend fun login(customer: String, password: String): String {
            delay(5)
            check(password == "right") { "wrong password" }
            return "welcome"
        }

        @RateLimited(limit = 10, windowMs = 60_000, key = ["#customer"], name = "k-tokens", charge = "#result.length")
        suspend fun answer(customer: String, words: Int): String {
            delay(5)
            return "x".repeat(words)
        }

        @RateLimited(limit = 1, windowMs = 60_000, key = ["#customer"], name = "k-deferred")
        fun later(customer: String): Deferred<String> = CompletableDeferred("later $customer")

        @Locked(name = "k-long", key = "#customer", leaseMs = 30_000)
        suspend fun longRebuild(customer: String): String {
            delay(2_000)
            return "rebuilt $customer"
        }

        @RateLimited(limit = 1, windowMs = 60_000, key = ["#customer"], name = "k-quote", fallback = "cachedQuote")
        suspend fun quote(customer: String): String {
            delay(5)
            return "fresh for $customer"
        }

        suspend fun cachedQuote(customer: String): String {
            delay(5)
            return "cached for $customer"
        }

        @RateLimited(limit = 1, windowMs = 60_000, key = ["#customer"], name = "k-report", fallback = "lateReport")
        suspend fun report(customer: String): String = "report for $customer"

        suspend fun lateReport(customer: String, refusal: RateLimitExceededException): String =
            "try again in ${refusal.decision().retryAfter().toSeconds()} s"

        @SingleUse(purpose = "k-reset", token = "#token")
        suspend fun reset(token: String): String {
            delay(5)
            return "reset"
        }
    }

    private val runner = ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                AopAutoConfiguration::class.java,
                RateLimitRedissonAutoConfiguration::class.java,
                RateLimitRedisAutoConfiguration::class.java,
                RateLimitAutoConfiguration::class.java,
                RateLimitAopAutoConfiguration::class.java,
            ),
        )
        .withPropertyValues(
            "spring.data.redis.url=" + SharedRedis.get().url(),
            "ratelimit.redis.require-at-startup=true",
            "ratelimit.redis.connect-timeout=20s", // the first connection on a busy machine
            "ratelimit.key-prefix=kotlin-" + UUID.randomUUID() + ":",
        )
        .withBean(Jobs::class.java)

    private fun customer() = "customer-" + UUID.randomUUID()

    @Test
    fun aSuspendFunctionIsRateLimited() {
        runner.run { context ->
            assertThat(context).hasNotFailed()
            val jobs = context.getBean(Jobs::class.java)
            val customer = customer()
            runBlocking {
                assertThat(jobs.export(customer)).isEqualTo("exported $customer")
                assertThat(jobs.export(customer)).isEqualTo("exported $customer")
                val refused = runCatching { jobs.export(customer) }.exceptionOrNull()
                assertThat(refused).isInstanceOf(RateLimitExceededException::class.java)
            }
        }
    }

    @Test
    fun aSuspendFallbackAnswersARefusedCallWithOrWithoutTheRefusal() {
        runner.run { context ->
            assertThat(context).hasNotFailed()
            val jobs = context.getBean(Jobs::class.java)
            val customer = customer()
            runBlocking {
                assertThat(jobs.quote(customer)).isEqualTo("fresh for $customer")
                assertThat(jobs.quote(customer)).isEqualTo("cached for $customer")
                assertThat(jobs.report(customer)).isEqualTo("report for $customer")
                assertThat(jobs.report(customer)).matches("try again in [1-6][0-9]? s")
            }
        }
    }

    @Test
    fun aLockIsHeldUntilTheCoroutineEnds() {
        runner.run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val customer = customer()
            val outcomes = runBlocking {
                (1..3).map { i ->
                    async {
                        delay(i * 50L) // the first holds the lock while its body runs 400 ms; the others come during it
                        runCatching { jobs.rebuild(customer) }
                    }
                }.awaitAll()
            }
            assertThat(outcomes.count { it.isSuccess }).isEqualTo(1)
            assertThat(outcomes.mapNotNull { it.exceptionOrNull() })
                .hasSize(2)
                .allSatisfy { assertThat(it).isInstanceOf(LockNotAcquiredException::class.java) }
            // once the coroutine has ended, the lock is free
            runBlocking { assertThat(jobs.rebuild(customer)).isEqualTo("rebuilt $customer") }
        }
    }

    @Test
    fun failuresOfASuspendFunctionAreCountedAndSuccessesAreNot() {
        runner.run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val customer = customer()
            runBlocking {
                repeat(3) { assertThat(jobs.login(customer, "right")).isEqualTo("welcome") } // not counted
                repeat(2) {
                    assertThat(runCatching { jobs.login(customer, "wrong") }.exceptionOrNull())
                        .isInstanceOf(IllegalStateException::class.java)
                }
                assertThat(runCatching { jobs.login(customer, "right") }.exceptionOrNull())
                    .`as`("two failures used the budget")
                    .isInstanceOf(RateLimitExceededException::class.java)
            }
        }
    }

    @Test
    fun aSuspendFunctionIsChargedWhatItsResultSays() {
        runner.run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val customer = customer()
            runBlocking {
                assertThat(jobs.answer(customer, 12)).hasSize(12) // admitted with room left, then charged 12 of 10
                assertThat(runCatching { jobs.answer(customer, 1) }.exceptionOrNull())
                    .`as`("the charge after the call took the budget past zero")
                    .isInstanceOf(RateLimitExceededException::class.java)
            }
        }
    }

    @Test
    fun aDeferredIsLimitedThroughSpringsAdapterRegistry() {
        runner.run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val customer = customer()
            runBlocking {
                assertThat(jobs.later(customer).await()).isEqualTo("later $customer")
                val refused = runCatching { jobs.later(customer).await() }.exceptionOrNull()
                assertThat(refused).isInstanceOf(RateLimitExceededException::class.java)
            }
        }
    }

    @Test
    fun aLockIsHeldForATwoSecondBodyAndReleasedWhenTheCoroutineIsCancelled() {
        runner.run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val customer = customer()
            runBlocking {
                val first = async { runCatching { jobs.longRebuild(customer) } }
                delay(300) // the first coroutine holds the lock, 1.7 s of its body to go
                val second = runCatching { jobs.longRebuild(customer) }
                assertThat(second.exceptionOrNull()).isInstanceOf(LockNotAcquiredException::class.java)
                first.cancel() // the coroutine is cancelled in its body: the lock is released
                first.join()
                val third = async { runCatching { jobs.longRebuild(customer) } }
                delay(300)
                assertThat(third.isActive).`as`("the next caller holds the lock and runs its body").isTrue()
                third.cancel()
            }
        }
    }

    @Test
    fun aSingleUseTokenWorksOnceOnASuspendFunction() {
        runner.run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val token = context.getBean(SingleUseTokens::class.java)
                .issue("k-reset", mapOf("user" to "42"), Duration.ofMinutes(1))
                .token()
            runBlocking {
                assertThat(jobs.reset(token)).isEqualTo("reset")
                assertThat(runCatching { jobs.reset(token) }.exceptionOrNull())
                    .isInstanceOf(SingleUseTokenException::class.java)
            }
        }
    }

    @Test
    fun aConcurrencySlotIsHeldForTheWholeCoroutine() {
        runner.run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val customer = customer()
            val outcomes = runBlocking {
                (1..6).map { async { runCatching { jobs.importFor(customer) } } }.awaitAll()
            }
            assertThat(jobs.mostInBody.get()).`as`("coroutines in the body at once").isLessThanOrEqualTo(2)
            assertThat(outcomes.count { it.isSuccess }).isGreaterThanOrEqualTo(2)
            assertThat(outcomes.mapNotNull { it.exceptionOrNull() })
                .isNotEmpty()
                .allSatisfy { assertThat(it).isInstanceOf(ConcurrencyLimitExceededException::class.java) }
        }
    }

    @Test
    fun aFlowIsLimitedPerCollection() {
        runner.run { context ->
            val jobs = context.getBean(Jobs::class.java)
            val customer = customer()
            runBlocking {
                repeat(3) { assertThat(jobs.numbers(customer).toList()).containsExactly(1, 2, 3) }
                val refused = runCatching { jobs.numbers(customer).toList() }.exceptionOrNull()
                assertThat(refused).isInstanceOf(RateLimitExceededException::class.java)
            }
        }
    }
}
