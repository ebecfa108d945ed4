package io.github.ratelimit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Each rule is worded once: the programmatic API says what annotations and properties say. */
class MessagesTest {

    @Test
    void aBadNameIsQuotedWithItsControlCharactersEscaped() {
        assertThat(Messages.badName("purpose", "a\nb{c}"))
                .isEqualTo("purpose must be 1 to 100 letters, digits or '._:/-', but was 'a\\x0ab{c}'");
        assertThat(Messages.badName(null, "x y")).startsWith("must be 1 to 100");
    }

    /** Regression: a busy scheduled job's lock was shown as 'report\x00'nightly'\x00nightly'. */
    @Test
    void aLockIsNamedByItsNameAndTheValueOfItsKeyWithoutItsSeparators() {
        String key = LockManager.keyOf("report", ClientIdentifier.of("#userId", "42"));
        assertThat(new LockNotAcquiredException(key, Duration.ofSeconds(3)).getMessage())
                .isEqualTo("The lock 'report' (key 42) is held by another caller; it expires within 3000 ms");
        assertThat(LockManager.quotedKey(LockManager.keyOf("digest"))).isEqualTo("'digest'");
        assertThat(LockManager.quotedKey("job\n1")).isEqualTo("'job\\x0a1'");
        assertThat(LockManager.shownKey("report", key)).isEqualTo("42");
        assertThat(LockManager.shownKey("digest", "digest")).isEmpty();
    }

    @Test
    void lockOptionsRefuseAMinimumHoldPastTheLifetime() {
        assertThatThrownBy(() -> LockOptions.lease(Duration.ofSeconds(1)).holdingAtLeast(Duration.ofSeconds(2)))
                .hasMessage("minHold must be at most the maxLifetime PT1S, but was PT2S");
        assertThatThrownBy(() -> LockOptions.lease(Duration.ofSeconds(1)).holdingAtLeast(Duration.ofMillis(-1)))
                .hasMessage(Messages.negative("minHold", Duration.ofMillis(-1)));
    }

    @Test
    void aVeryLongValueIsCutInTheMessage() {
        String quoted = Messages.printable("x".repeat(10_000));
        assertThat(quoted).hasSizeLessThan(200).endsWith("... (10000 chars)");
    }

    @Test
    void limitsPlansAndLockOptionsUseTheSameWording() {
        assertThatThrownBy(() -> RateLimit.of("a b", Algorithm.FIXED_WINDOW, 1, 1000))
                .hasMessage(Messages.badName("limit name", "a b"));
        assertThatThrownBy(() -> RateLimit.of("ok", Algorithm.FIXED_WINDOW, 0, 1000))
                .hasMessage(Messages.atLeast("limit", 1, 0) + " (limit 'ok')");
        assertThatThrownBy(() ->
                        RateLimit.of("ok", Algorithm.FIXED_WINDOW, 1, 1000).forPlan("pro plan", 5))
                .hasMessageStartingWith(Messages.badName("plan name", "pro plan"));
        assertThatThrownBy(() -> LimitRequest.of(RateLimit.of("ok", Algorithm.FIXED_WINDOW, 1, 1000), "", 1))
                .hasMessage(Messages.empty("identifier") + " (limit 'ok')");
        assertThatThrownBy(() ->
                        new LockOptions(Duration.ofSeconds(1), Duration.ofMillis(-1), Duration.ofSeconds(1), null))
                .hasMessageContaining(Messages.negative("maxWait", Duration.ofMillis(-1)));
    }
}
