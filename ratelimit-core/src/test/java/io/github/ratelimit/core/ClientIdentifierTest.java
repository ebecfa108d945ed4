package io.github.ratelimit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The identifier's parts travel as a type; its canonical form is only what its digest is taken of. */
class ClientIdentifierTest {

    @Test
    void kindsAreNormalisedAndTellEqualValuesApart() {
        assertThat(ClientIdentifier.of(" header:X-Api-Key ", "k"))
                .isEqualTo(ClientIdentifier.of("header:x-api-key", "k"));
        assertThat(ClientIdentifier.of("#userId", "42").digest())
                .isNotEqualTo(ClientIdentifier.of("ip", "42").digest())
                .isNotEqualTo(ClientIdentifier.of("42").digest());
    }

    /** A value without a kind that held NUL could spell the canonical form of an identifier with one. */
    @Test
    void anIdentifierWithoutAKindCannotImitateOneWithAKind() {
        ClientIdentifier withKind = ClientIdentifier.of("ip", "1.2.3.4");
        assertThatThrownBy(() -> ClientIdentifier.of(withKind.canonical()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without a kind must not contain NUL");
        assertThat(ClientIdentifier.of("user-42").canonical()).isEqualTo("user-42");
        assertThat(ClientIdentifier.of("ip", "1.2.3.4").value()).isEqualTo("1.2.3.4");
    }

    @Test
    void aRequestHasOneIdentifierTypeWhateverMadeIt() {
        RateLimit limit = RateLimit.of("t", io.github.ratelimit.annotation.Algorithm.FIXED_WINDOW, 5, 1000);
        LimitRequest byApplication = LimitRequest.of(limit, "user-42", 1);
        assertThat(byApplication.identifier()).isEqualTo(ClientIdentifier.of("user-42"));
        assertThat(byApplication.asShadow(true).asStaggered(true).checkingOnly())
                .isEqualTo(new LimitRequest(limit, ClientIdentifier.of("user-42"), 1, true, true, true));
        assertThatThrownBy(() -> LimitRequest.of(limit, "u", 6)).hasMessageContaining("cost must be between 0 and");
    }
}
