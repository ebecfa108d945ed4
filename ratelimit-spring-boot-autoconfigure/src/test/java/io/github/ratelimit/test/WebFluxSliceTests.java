package io.github.ratelimit.test;

import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webflux.test.autoconfigure.WebFluxTest;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** The same on the reactive side: a {@code @WebFluxTest} with and without the rate limiter. */
class WebFluxSliceTests {

    @RestController
    static class ReactiveReportController {

        @GetMapping("/flux/report")
        @RateLimited(limit = 2, windowMs = 60_000, key = "'everyone'")
        Mono<String> report() {
            return Mono.just("report");
        }

        @PostMapping("/flux/work")
        @Locked(name = "work", key = "'one'")
        Mono<String> work(LockHandle lock) {
            return Mono.just(lock == null ? "no lock support" : "fence " + lock.fencingToken());
        }
    }

    @Nested
    @WebFluxTest(ReactiveReportController.class)
    @AutoConfigureRateLimits
    @EmbeddedRedis
    class WithTheRateLimiter {

        @Autowired
        WebTestClient client;

        @Test
        void twoReportsThen429() {
            twoThen429();
        }

        @Test
        void twoReportsThen429Again() {
            twoThen429();
        }

        private void twoThen429() {
            client.get().uri("/flux/report").exchange().expectStatus().isOk();
            client.get().uri("/flux/report").exchange().expectStatus().isOk();
            client.get()
                    .uri("/flux/report")
                    .exchange()
                    .expectStatus()
                    .isEqualTo(429)
                    .expectHeader()
                    .exists("Retry-After");
            client.post()
                    .uri("/flux/work")
                    .exchange()
                    .expectBody(String.class)
                    .value(body ->
                            org.assertj.core.api.Assertions.assertThat(body).startsWith("fence "));
        }
    }

    @Nested
    @WebFluxTest(ReactiveReportController.class)
    class WithoutIt {

        @Autowired
        WebTestClient client;

        @Test
        void theSliceWorksAndTheAnnotationsStayOutOfTheWay() {
            for (int i = 0; i < 3; i++) {
                client.get().uri("/flux/report").exchange().expectStatus().isOk();
            }
            client.post().uri("/flux/work").exchange().expectBody(String.class).isEqualTo("no lock support");
        }
    }
}
