package io.github.ratelimit.spring.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The durations operators write to the endpoint: as properties write them, or ISO-8601; anything else named. */
class DurationTextTest {

    @Test
    void aDurationIsReadAsPropertiesWriteItOrAsIso8601() {
        assertThat(OperatorWrites.duration("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(OperatorWrites.duration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(OperatorWrites.duration("250")).isEqualTo(Duration.ofMillis(250));
        assertThat(OperatorWrites.duration("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(OperatorWrites.duration("15m")).isEqualTo(Duration.ofMinutes(15));
        assertThat(OperatorWrites.duration("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(OperatorWrites.duration("PT1M30S")).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void anythingElseIsRefusedNamingTheText() {
        for (String text : new String[] {"abc", "1.5s", "10 s", "99999999999999999999d", "9223372036854775807d"}) {
            assertThatThrownBy(() -> OperatorWrites.duration(text))
                    .as(text)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(text);
        }
    }
}
