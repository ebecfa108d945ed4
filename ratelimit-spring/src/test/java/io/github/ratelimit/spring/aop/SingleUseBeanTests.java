package io.github.ratelimit.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.core.tokens.SingleUseTokenException;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import io.github.ratelimit.spring.EngineContext;
import io.github.ratelimit.spring.definition.InvalidDefinitionException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

class SingleUseBeanTests {

    /** The application of these tests: the engine wired by hand on plain Spring ({@link EngineContext}). */
    private static EngineContext engine() {
        return EngineContext.on("ratelimit:").beans(Vms.class);
    }

    static class Vms {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @SingleUse(purpose = "spawn-vm")
        public String spawn(String token, TokenConsumption consumed) {
            runs.incrementAndGet();
            return consumed.metadata().get("size");
        }

        @SingleUse(purpose = "flaky", token = "#p0")
        public void keepsOnFailure(String token) {
            runs.incrementAndGet();
            throw new IllegalStateException("downstream failed");
        }

        @SingleUse(purpose = "flaky", token = "#p0", onFailure = SingleUse.OnFailure.RELEASE)
        public void releasesOnFailure(String token, boolean fail) {
            runs.incrementAndGet();
            if (fail) {
                throw new IllegalStateException("downstream failed");
            }
        }

        @SingleUse(purpose = "flaky", onFailure = SingleUse.OnFailure.RELEASE)
        public CompletionStage<String> releasesOnAsyncFailure(String token) {
            return CompletableFuture.failedFuture(new IllegalStateException("later"));
        }
    }

    @Test
    void consumesBeforeTheBodyAndHandsOverTheMetadata() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Vms vms = context.getBean(Vms.class);
            String token = context.getBean(SingleUseTokens.class)
                    .issue("spawn-vm", Map.of("size", "small"), Duration.ofMinutes(1))
                    .token();

            assertThat(vms.spawn(token, null)).isEqualTo("small");
            assertThatThrownBy(() -> vms.spawn(token, null))
                    .isInstanceOf(SingleUseTokenException.class)
                    .extracting(e -> ((SingleUseTokenException) e).status())
                    .isEqualTo(Status.ALREADY_USED);
            assertThatThrownBy(() -> vms.spawn(null, null))
                    .isInstanceOf(SingleUseTokenException.class)
                    .extracting(e -> ((SingleUseTokenException) e).status())
                    .isEqualTo(Status.MISSING);
            assertThat(vms.runs()).isEqualTo(1);
        }
    }

    @Test
    void staysConsumedWhenTheMethodThrowsByDefault() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Vms vms = context.getBean(Vms.class);
            String token = context.getBean(SingleUseTokens.class)
                    .issue("flaky", Map.of(), Duration.ofMinutes(1))
                    .token();
            assertThatThrownBy(() -> vms.keepsOnFailure(token)).hasMessage("downstream failed");
            assertThatThrownBy(() -> vms.keepsOnFailure(token))
                    .isInstanceOf(SingleUseTokenException.class)
                    .hasMessageContaining("already used");
        }
    }

    @Test
    void releaseOnFailureGivesTheTokenAnotherTry() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Vms vms = context.getBean(Vms.class);
            String token = context.getBean(SingleUseTokens.class)
                    .issue("flaky", Map.of(), Duration.ofMinutes(1))
                    .token();
            assertThatThrownBy(() -> vms.releasesOnFailure(token, true)).hasMessage("downstream failed");
            vms.releasesOnFailure(token, false);
            assertThatThrownBy(() -> vms.releasesOnFailure(token, false))
                    .isInstanceOf(SingleUseTokenException.class)
                    .hasMessageContaining("already used");
        }
    }

    @Test
    void releaseOnAsyncFailure() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Vms vms = context.getBean(Vms.class);
            SingleUseTokens tokens = context.getBean(SingleUseTokens.class);
            String token =
                    tokens.issue("flaky", Map.of(), Duration.ofMinutes(1)).token();
            CompletionStage<String> stage = vms.releasesOnAsyncFailure(token);
            assertThatThrownBy(() -> stage.toCompletableFuture().join()).hasRootCauseMessage("later");
            assertThat(tokens.consume("flaky", token).consumed()).isTrue();
        }
    }

    @Test
    void invalidDeclarationsFailTheStart() {
        assertThatThrownBy(() -> engine().beans(BadPurpose.class).start())
                .isInstanceOf(InvalidDefinitionException.class)
                .hasMessageContaining("Invalid @SingleUse on")
                .hasMessageContaining("BadPurpose.call(String)")
                .hasMessageContaining("purpose must be");
        assertThatThrownBy(() -> engine().beans(UnknownVariable.class).start())
                .hasMessageContaining("token '#tokn' names #tokn");
    }

    static class BadPurpose {
        @SingleUse(purpose = "no spaces")
        public void call(String token) {}
    }

    static class UnknownVariable {
        @SingleUse(purpose = "p", token = "#tokn")
        public void call(String token) {}
    }
}
