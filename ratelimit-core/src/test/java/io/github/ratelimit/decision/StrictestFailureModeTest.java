package io.github.ratelimit.decision;

import static io.github.ratelimit.annotation.FailureMode.CLOSED;
import static io.github.ratelimit.annotation.FailureMode.DEFAULT;
import static io.github.ratelimit.annotation.FailureMode.LOCAL;
import static io.github.ratelimit.annotation.FailureMode.OPEN;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** A call with limits of several failure modes takes the strictest, DEFAULT standing for the application's mode. */
class StrictestFailureModeTest {

    @Test
    void closedThenLocalThenOpen() {
        assertThat(RateLimitDecisions.strictest(Set.of(OPEN, LOCAL), OPEN)).isEqualTo(LOCAL);
        assertThat(RateLimitDecisions.strictest(Set.of(OPEN, LOCAL, CLOSED), OPEN))
                .isEqualTo(CLOSED);
        assertThat(RateLimitDecisions.strictest(Set.of(OPEN), CLOSED))
                .as("a limit's own mode wins")
                .isEqualTo(OPEN);
    }

    @Test
    void defaultIsTheApplicationsModeAndCountsInTheComparison() {
        assertThat(RateLimitDecisions.strictest(Set.of(DEFAULT), LOCAL)).isEqualTo(LOCAL);
        assertThat(RateLimitDecisions.strictest(Set.of(DEFAULT, OPEN), CLOSED)).isEqualTo(CLOSED);
        assertThat(RateLimitDecisions.strictest(Set.of(DEFAULT, LOCAL), OPEN)).isEqualTo(LOCAL);
        assertThat(RateLimitDecisions.strictest(Set.of(), OPEN))
                .as("no limit said anything")
                .isEqualTo(OPEN);
    }
}
