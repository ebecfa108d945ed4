package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.env.MockEnvironment;

@ExtendWith(OutputCaptureExtension.class)
class ForwardedHeadersCheckTest {

    @Test
    void warnsWhenTomcatTrustsItsDefaultInternalProxies(CapturedOutput output) {
        new ForwardedHeadersCheck(new MockEnvironment().withProperty("server.forward-headers-strategy", "native"))
                .afterSingletonsInstantiated();
        assertThat(output).contains("server.forward-headers-strategy is native");
    }

    @Test
    void quietWhenTheInternalProxiesAreSetOrTheStrategyIsNone(CapturedOutput output) {
        new ForwardedHeadersCheck(new MockEnvironment()
                        .withProperty("server.forward-headers-strategy", "native")
                        .withProperty("server.tomcat.remoteip.internal-proxies", "10\\.0\\.0\\.1"))
                .afterSingletonsInstantiated();
        new ForwardedHeadersCheck(new MockEnvironment().withProperty("server.forward-headers-strategy", "none"))
                .afterSingletonsInstantiated();
        assertThat(output).doesNotContain("server.forward-headers-strategy is native");
    }

    @Test
    void warnsOnTheReactiveServerWhateverTheTomcatSettingsSay(CapturedOutput output) {
        new ForwardedHeadersCheck(
                        new MockEnvironment()
                                .withProperty("server.forward-headers-strategy", "native")
                                .withProperty("server.tomcat.remoteip.internal-proxies", "10\\.0\\.0\\.1"),
                        true)
                .afterSingletonsInstantiated();
        assertThat(output).contains("the reactive server replaces the client address");
    }
}
