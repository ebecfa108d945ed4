package io.github.ratelimit.autoconfigure.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.autoconfigure.RateLimitProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * One WARN at startup when operators may write or reset through the endpoint and nothing on the class path can secure
 * it; none when writes are off, or when Spring Security is there (its filter-chain type on the class path).
 */
@ExtendWith(OutputCaptureExtension.class)
class UnsecuredWritesWarningTests {

    /** The class path as the warning sees it: only the named class is there. */
    static java.util.function.Predicate<String> having(String name) {
        return name::equals;
    }

    @Test
    void writesWithoutSpringSecurityAreWarnedAboutOnce(CapturedOutput output) {
        RateLimitProperties.Actuator writes = new RateLimitProperties.Actuator();
        writes.setWriteEnabled(true);
        assertThat(RateLimitEndpointAutoConfiguration.warnIfUnsecured(writes, having("none.Here")))
                .isTrue();
        assertThat(output)
                .contains("WARN")
                .contains("ratelimit.actuator.write-enabled=true")
                .contains("Spring Security is not on the class path");

        RateLimitProperties.Actuator resets = new RateLimitProperties.Actuator();
        resets.setResetEnabled(true);
        assertThat(RateLimitEndpointAutoConfiguration.warnIfUnsecured(resets, having("none.Here")))
                .isTrue();
        assertThat(output).contains("ratelimit.actuator.reset-enabled=true");
    }

    @Test
    void noWarningWhenNothingIsWritableOrSpringSecurityIsThere() {
        RateLimitProperties.Actuator off = new RateLimitProperties.Actuator();
        assertThat(RateLimitEndpointAutoConfiguration.warnIfUnsecured(off, having("none.Here")))
                .isFalse();

        RateLimitProperties.Actuator writes = new RateLimitProperties.Actuator();
        writes.setWriteEnabled(true);
        assertThat(RateLimitEndpointAutoConfiguration.warnIfUnsecured(
                        writes, having(RateLimitEndpointAutoConfiguration.SECURITY)))
                .isFalse();
        assertThat(RateLimitEndpointAutoConfiguration.warnIfUnsecured(
                        writes, having(RateLimitEndpointAutoConfiguration.REACTIVE_SECURITY)))
                .isFalse();
    }
}
