package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A Boot 3 application is told at once that the starter needs Boot 4; Boot 4 (this build's) passes. */
class BootVersionCheckTest {

    @Test
    void boot3IsRefusedWithAMessage() {
        assertThatThrownBy(() -> new RateLimitBootVersionCheck.Check("3.5.7").postProcessBeanFactory(null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs Spring Boot 4.x")
                .hasMessageContaining("runs Spring Boot 3.5.7");
    }

    @Test
    void boot4AndUnknownVersionsPass() {
        assertThatCode(() -> new RateLimitBootVersionCheck.Check("4.1.1").postProcessBeanFactory(null))
                .doesNotThrowAnyException();
        assertThatCode(() -> new RateLimitBootVersionCheck.Check(null).postProcessBeanFactory(null))
                .doesNotThrowAnyException();
        assertThatCode(() -> RateLimitBootVersionCheck.rateLimitBootVersion().postProcessBeanFactory(null))
                .doesNotThrowAnyException();
    }
}
