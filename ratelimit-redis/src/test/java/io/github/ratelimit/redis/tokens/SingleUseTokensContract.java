package io.github.ratelimit.redis.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.tokens.SingleUseTokenException;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import io.github.ratelimit.fixtures.RedisCommands;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.test.support.RedisTopology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RedissonClient;

/** The single-use token promises, run on a single Redis and on a Redis Cluster alike. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SingleUseTokensContract {

    RedissonClient clientA;
    RedissonClient clientB;
    RedisSingleUseTokens instanceA;
    RedisSingleUseTokens instanceB;

    /** Where the tests run. */
    abstract RedisTopology topology();

    @BeforeAll
    void start() {
        clientA = topology().newClient();
        clientB = topology().newClient();
        instanceA = new RedisSingleUseTokens(clientA, "ratelimit:", Guards.patient());
        instanceB = new RedisSingleUseTokens(clientB, "ratelimit:", Guards.patient());
    }

    @AfterAll
    void stop() {
        clientA.shutdown();
        clientB.shutdown();
    }

    @Test
    void consumedOnceWithItsMetadataThenKnownAsUsed() {
        IssuedToken issued =
                instanceA.issue("spawn-vm", Map.of("size", "small", "region", "eu"), Duration.ofMinutes(5));

        TokenConsumption first = instanceB.consume("spawn-vm", issued.token());
        TokenConsumption second = instanceA.consume("spawn-vm", issued.token());

        assertThat(issued.token()).matches("[A-Za-z0-9_-]{32}");
        assertThat(issued.toString()).doesNotContain(issued.token());
        assertThat(first.status()).isEqualTo(Status.CONSUMED);
        assertThat(first.metadata()).isEqualTo(Map.of("size", "small", "region", "eu"));
        assertThat(first.remainingUses()).isZero();
        assertThat(second.status()).isEqualTo(Status.ALREADY_USED);
        assertThat(second.metadata()).isEmpty();
        assertThatThrownBy(second::orElseThrow)
                .isInstanceOf(SingleUseTokenException.class)
                .hasMessageContaining("already used")
                .hasMessageNotContaining(issued.token());
    }

    @Test
    void unknownMalformedMissingAndOtherPurposeAreToldApart() {
        IssuedToken issued = instanceA.issue("verify-email", Map.of(), Duration.ofMinutes(5));
        String neverIssued = "A".repeat(32);

        assertThat(instanceA.consume("verify-email", neverIssued).status()).isEqualTo(Status.UNKNOWN);
        assertThat(instanceA.consume("spawn-vm", issued.token()).status()).isEqualTo(Status.UNKNOWN);
        assertThat(instanceA.consume("verify-email", "short").status()).isEqualTo(Status.MALFORMED);
        assertThat(instanceA.consume("verify-email", "x".repeat(8192)).status()).isEqualTo(Status.MALFORMED);
        assertThat(instanceA.consume("verify-email", "{" + "a".repeat(31)).status())
                .isEqualTo(Status.MALFORMED);
        assertThat(instanceA.consume("verify-email", null).status()).isEqualTo(Status.MISSING);
        assertThat(instanceA.consume("verify-email", issued.token()).status()).isEqualTo(Status.CONSUMED);
    }

    /** 200 concurrent consumers on two clients: exactly `uses` succeed, every other one is told it was used. */
    @ParameterizedTest
    @ValueSource(ints = {1, 7})
    void exactlyUsesSucceedUnderConcurrencyAcrossInstances(int uses) throws Exception {
        IssuedToken issued = instanceA.issue("redeem", Map.of("offer", "42"), Duration.ofMinutes(5), uses);
        ExecutorService pool = Executors.newFixedThreadPool(64);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<TokenConsumption>> futures = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            RedisSingleUseTokens tokens = i % 2 == 0 ? instanceA : instanceB;
            futures.add(pool.submit(() -> {
                go.await();
                return tokens.consume("redeem", issued.token());
            }));
        }
        go.countDown();
        List<TokenConsumption> results = new ArrayList<>();
        for (Future<TokenConsumption> future : futures) {
            results.add(future.get(60, TimeUnit.SECONDS));
        }
        pool.shutdown();

        Map<Status, Long> byStatus =
                results.stream().collect(Collectors.groupingBy(TokenConsumption::status, Collectors.counting()));
        assertThat(byStatus).isEqualTo(Map.of(Status.CONSUMED, (long) uses, Status.ALREADY_USED, 200L - uses));
        assertThat(results.stream().filter(TokenConsumption::consumed).map(TokenConsumption::remainingUses))
                .containsExactlyInAnyOrderElementsOf(
                        java.util.stream.IntStream.range(0, uses).boxed().toList());
        assertThat(results.stream().filter(TokenConsumption::consumed))
                .allSatisfy(r -> assertThat(r.metadata()).isEqualTo(Map.of("offer", "42")));
    }

    @Test
    void unusableAfterItsTtl() {
        IssuedToken issued = instanceA.issue("short-lived", Map.of(), Duration.ofMillis(300));
        String key = new RedisKeys("ratelimit:").tokenKey("short-lived", issued.token());
        long pttl = RedisCommands.<Long>onKey(clientA, "PTTL", key);
        assertThat(pttl).isBetween(1L, 300L);

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (RedisCommands.timeMs(clientA) <= issued.expiresAt().toEpochMilli()) {
            assertThat(System.nanoTime()).as("Redis clock passing the expiry").isLessThan(deadline);
            Thread.onSpinWait();
        }

        assertThat(instanceA.consume("short-lived", issued.token()).status()).isEqualTo(Status.UNKNOWN);
    }

    @Test
    void releaseGivesBackOneUseAndNoMore() {
        IssuedToken issued = instanceA.issue("retry", Map.of(), Duration.ofMinutes(5));
        assertThat(instanceA.consume("retry", issued.token()).consumed()).isTrue();
        assertThat(instanceA.release("retry", issued.token())).isTrue();
        assertThat(instanceA.release("retry", issued.token())).isFalse();
        assertThat(instanceA.consume("retry", issued.token()).consumed()).isTrue();
        assertThat(instanceA.consume("retry", issued.token()).status()).isEqualTo(Status.ALREADY_USED);
        assertThat(instanceA.release("retry", "B".repeat(32))).isFalse();
    }

    @Test
    void badArgumentsAreNamed() {
        Function<Runnable, Throwable> thrown = r -> {
            try {
                r.run();
                return null;
            } catch (IllegalArgumentException e) {
                return e;
            }
        };
        assertThat(thrown.apply(() -> instanceA.issue("a b", Map.of(), Duration.ofMinutes(1))))
                .hasMessageContaining("purpose must be");
        assertThat(thrown.apply(() -> instanceA.issue("p", Map.of(), Duration.ZERO)))
                .hasMessageContaining("ttl must be at least 1 ms");
        assertThat(thrown.apply(() -> instanceA.issue("p", Map.of(), Duration.ofMinutes(1), 0)))
                .hasMessageContaining("uses must be between 1 and");
        assertThat(thrown.apply(() -> instanceA.issue("p", Map.of("big", "x".repeat(5000)), Duration.ofMinutes(1))))
                .hasMessageContaining("at most 4096 bytes");
    }
}
