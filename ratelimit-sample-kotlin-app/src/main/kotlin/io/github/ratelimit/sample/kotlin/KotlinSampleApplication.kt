package io.github.ratelimit.sample.kotlin

import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.runApplication

/** The sample app in Kotlin on Spring WebFlux, every annotated handler a `suspend fun`; see the README. */
@SpringBootApplication
class KotlinSampleApplication

fun main(args: Array<String>) {
    runApplication<KotlinSampleApplication>(*args)
}
