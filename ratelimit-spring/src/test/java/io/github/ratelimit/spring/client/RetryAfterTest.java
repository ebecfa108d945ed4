package io.github.ratelimit.spring.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How long an upstream's {@code Retry-After} pauses an outbound rule. */
class RetryAfterTest {

    @Test
    void retryAfterIsReadAsSecondsOrAnHttpDateAndAnythingElseIsIgnored() {
        assertThat(OutboundLimits.retryAfter("120", null)).isEqualTo(Duration.ofSeconds(120));
        assertThat(OutboundLimits.retryAfter(" 7 ", null)).isEqualTo(Duration.ofSeconds(7));
        assertThat(OutboundLimits.retryAfter("Wed, 25 Nov 2026 10:00:30 GMT", "Wed, 25 Nov 2026 10:00:00 GMT"))
                .isEqualTo(Duration.ofSeconds(30));
        assertThat(OutboundLimits.retryAfter("Wed, 25 Nov 2026 09:59:00 GMT", "Wed, 25 Nov 2026 10:00:00 GMT"))
                .isNull();
        assertThat(OutboundLimits.retryAfter("0", null)).isNull();
        assertThat(OutboundLimits.retryAfter("-5", null)).isNull();
        assertThat(OutboundLimits.retryAfter("soon", null)).isNull();
        assertThat(OutboundLimits.retryAfter("99999999999999", null)).isNull();
        assertThat(OutboundLimits.retryAfter(null, null)).isNull();
    }
}
