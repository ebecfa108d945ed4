package io.github.ratelimit.sample.reactive;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The sample app on Spring WebFlux: the servlet sample's HTTP contract, served without blocking; see the README. */
@SpringBootApplication
public class ReactiveSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(ReactiveSampleApplication.class, args);
    }
}
