package io.github.ratelimit.sample.protocols;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Limits beyond HTTP: a gRPC service ({@link Greeter}), a Kafka listener ({@link OrderListener}) and a GraphQL field
 * ({@link QuoteController}), each limited across every instance on one Redis. See the README's tour.
 */
@SpringBootApplication
@EnableScheduling
public class ProtocolsApplication {

    public static void main(String[] args) {
        SpringApplication.run(ProtocolsApplication.class, args);
    }
}
