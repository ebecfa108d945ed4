package io.github.ratelimit.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.core.RateLimitExceededException;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

/** A plain {@code @SpringBootTest} with {@link EmbeddedRedis}: starts without a Redis of its own, and limits apply. */
@SpringBootTest(classes = SpringBootTestWithEmbeddedRedisTests.App.class)
@EmbeddedRedis
class SpringBootTestWithEmbeddedRedisTests {

    /** Also the configuration the slice tests of this package find. */
    @SpringBootApplication
    static class App {
        @Bean
        Exports exports() {
            return new Exports();
        }
    }

    static class Exports {
        @RateLimited(limit = 1, windowMs = 60_000, key = "'all'")
        public String export() {
            return "exported";
        }
    }

    @Autowired
    Exports exports;

    @Test
    void oneExportPerMinute() {
        assertThat(exports.export()).isEqualTo("exported");
        assertThatThrownBy(exports::export).isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    void oneExportPerMinuteAgainAfterTheClearing() {
        assertThat(exports.export()).isEqualTo("exported");
        assertThatThrownBy(exports::export).isInstanceOf(RateLimitExceededException.class);
    }
}
