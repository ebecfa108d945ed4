package io.github.ratelimit.test.kit;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The promises of {@link SingleUseTokens}, for any store: extend it, make the tokens in {@link #newInstance()}. A token
 * of n uses is consumed exactly n times under any concurrency, on any instance; every other presentation is told it
 * was used; a token answers only for its purpose; a use given back can be taken once more, and only once.
 */
public abstract class SingleUseTokensContract extends TwoInstances<SingleUseTokens> {

    @ParameterizedTest
    @ValueSource(ints = {1, 5})
    void exactlyItsUsesSucceedUnderConcurrency(int uses) throws Exception {
        String purpose = fresh("redeem");
        IssuedToken issued = instance(0).issue(purpose, Map.of("offer", "42"), Duration.ofMinutes(5), uses);
        Queue<TokenConsumption> results = new ConcurrentLinkedQueue<>();

        Threads.run(32, 4, (thread, i) -> results.add(instance(thread).consume(purpose, issued.token())));

        assertThat(results.stream().collect(Collectors.groupingBy(TokenConsumption::status, Collectors.counting())))
                .isEqualTo(Map.of(Status.CONSUMED, (long) uses, Status.ALREADY_USED, 128L - uses));
        assertThat(results.stream().filter(TokenConsumption::consumed).map(TokenConsumption::remainingUses))
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, uses).boxed().toList());
        assertThat(results.stream().filter(TokenConsumption::consumed))
                .allSatisfy(r -> assertThat(r.metadata()).isEqualTo(Map.of("offer", "42")));
    }

    @Test
    void aTokenAnswersOnlyForItsPurposeAndAnUnknownOneIsToldApart() {
        String purpose = fresh("verify-email");
        IssuedToken issued = instance(0).issue(purpose, Map.of(), Duration.ofMinutes(5));

        assertThat(instance(1).consume(fresh("other"), issued.token()).status()).isEqualTo(Status.UNKNOWN);
        assertThat(instance(1).consume(purpose, null).status()).isEqualTo(Status.MISSING);
        assertThat(instance(1).consume(purpose, issued.token()).status()).isEqualTo(Status.CONSUMED);
        assertThat(instance(0).consume(purpose, issued.token()).status()).isEqualTo(Status.ALREADY_USED);
        assertThat(issued.toString()).doesNotContain(issued.token());
    }

    @Test
    void aUseGivenBackIsTakenOnceMoreAndOnlyOnce() {
        String purpose = fresh("checkout");
        IssuedToken issued = instance(0).issue(purpose, Map.of(), Duration.ofMinutes(5));
        assertThat(instance(0).consume(purpose, issued.token()).consumed()).isTrue();

        assertThat(instance(1).release(purpose, issued.token())).isTrue();
        assertThat(instance(1).consume(purpose, issued.token()).consumed()).isTrue();
        assertThat(instance(0).consume(purpose, issued.token()).status()).isEqualTo(Status.ALREADY_USED);
    }

    /** Once its expiry has passed (on the store's clock, which a margin separates from this JVM's), a token is unknown. */
    @Test
    void aTokenIsUnknownOnceItsTtlHasPassed() throws Exception {
        String purpose = fresh("short-lived");
        IssuedToken issued = instance(0).issue(purpose, Map.of(), Duration.ofMillis(200));
        assertThat(issued.expiresAt()).isAfter(Instant.now().minusSeconds(1));

        Poll.until(
                "the token's expiry and a margin to pass",
                Duration.ofSeconds(10),
                () -> System.currentTimeMillis() > issued.expiresAt().toEpochMilli() + 250);

        assertThat(instance(1).consume(purpose, issued.token()).status()).isEqualTo(Status.UNKNOWN);
    }
}
