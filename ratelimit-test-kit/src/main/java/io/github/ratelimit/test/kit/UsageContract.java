package io.github.ratelimit.test.kit;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.Usage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The promises of {@link RateLimiter#usage(List)}, {@link RateLimiter#credit(List, long)} and
 * {@link RateLimiter#reset(RateLimit, ClientIdentifier)}, for any store: extend it in a test of your own, make the
 * limiter in {@link #newInstance()}, and every test here runs against it (across two instances where they share their
 * counts).
 *
 * <p>What every store promises: reading what an identifier used spends nothing and refreshes no expiry (what the store
 * holds, read through {@link #storedState(String)}, is the same before and after, and lives no longer); what a read
 * reports is what the next calls find; a credit grants exactly its units for the current window (a fixed window past its
 * limit, a sliding window and a bucket at most what they counted), credits made at once add up, and an instance that
 * refused a moment ago admits the credited units at once; a reset forgets what was counted.
 */
public abstract class UsageContract extends TwoInstances<RateLimiter> {

    private static final long HOUR_MS = 3_600_000;

    /** What a store may add to a reset (Redis deletes a key a millisecond after its time to live ends). */
    private static final long MARGIN_MS = 5;

    /**
     * What the store holds for one limit name: each entry's value, with its time to live in milliseconds where it has
     * one, as text (for example {@code "0a1b…|ttl=3599000"}). A usage read must leave every value as it was and no time
     * to live longer. Stores that keep nothing outside the limiter answer an empty map (the default).
     */
    protected Map<String, String> storedState(String limitName) {
        return Map.of();
    }

    private static LimitRequest request(RateLimit limit, String id) {
        return LimitRequest.of(limit, id, 1);
    }

    private long admitted(RateLimiter limiter, List<LimitRequest> requests, int tries) {
        long admitted = 0;
        for (int i = 0; i < tries; i++) {
            Decision decision = limiter.tryAcquire(requests);
            if (decision.allowed()) {
                admitted++;
            }
        }
        return admitted;
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aReadSpendsNothingAndRefreshesNoExpiry(Algorithm algorithm) {
        RateLimit limit = RateLimit.of(fresh("read"), algorithm, 5, HOUR_MS);
        List<LimitRequest> requests = List.of(request(limit, fresh("customer")));
        assertThat(admitted(instance(0), requests, 3)).isEqualTo(3);
        Map<String, String> before = storedState(limit.name());

        for (int i = 0; i < 5; i++) {
            Usage usage = instance(i).usage(requests);
            Usage.Window window = usage.windows().get(0);
            assertThat(window.used()).as("read %d", i).isEqualTo(3);
            assertThat(window.remaining()).isEqualTo(2);
            assertThat(window.quota()).isEqualTo(5);
            assertThat(window.name()).isEqualTo(limit.name());
            assertThat(window.resetsAt()).isAfter(usage.readAt());
            // a store may round up by a few milliseconds, so that waiting until then always suffices
            assertThat(window.resetsAt()).isBeforeOrEqualTo(usage.readAt().plusMillis(HOUR_MS + MARGIN_MS));
        }

        Map<String, String> after = storedState(limit.name());
        assertThat(after.keySet()).isEqualTo(before.keySet());
        before.forEach((key, stored) -> {
            String now = java.util.Objects.requireNonNull(after.get(key));
            assertThat(valueOf(now)).as(key).isEqualTo(valueOf(stored));
            assertThat(ttlOf(now)).as("time to live of %s", key).isLessThanOrEqualTo(ttlOf(stored));
        });
        assertThat(admitted(instance(1), requests, 3))
                .as("the reads spent nothing")
                .isEqualTo(2);
    }

    private static String valueOf(String stored) {
        int at = stored.lastIndexOf("|ttl=");
        return at < 0 ? stored : stored.substring(0, at);
    }

    private static long ttlOf(String stored) {
        int at = stored.lastIndexOf("|ttl=");
        return at < 0 ? -1 : Long.parseLong(stored.substring(at + 5));
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void anIdentifierNeverSeenHasUsedNothingAndTheReadStoresNothing(Algorithm algorithm) {
        RateLimit limit = RateLimit.of(fresh("unseen"), algorithm, 4, HOUR_MS);

        Usage.Window window = instance(0)
                .usage(List.of(request(limit, fresh("customer"))))
                .windows()
                .get(0);

        assertThat(window.used()).isZero();
        assertThat(window.remaining()).isEqualTo(4);
        assertThat(storedState(limit.name())).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aCreditGrantsItsUnitsForTheCurrentWindowOnEveryInstance(Algorithm algorithm) {
        RateLimit limit = RateLimit.of(fresh("credit"), algorithm, 3, HOUR_MS);
        List<LimitRequest> requests = List.of(request(limit, fresh("customer")));
        assertThat(admitted(instance(0), requests, 3)).isEqualTo(3);
        assertThat(instance(1).tryAcquire(requests).allowed())
                .as("refused on the other instance")
                .isFalse();

        assertThat(instance(0).credit(requests, 2)).isEqualTo(2);

        Usage.Window window = instance(1).usage(requests).windows().get(0);
        assertThat(window.used()).isEqualTo(1);
        assertThat(window.remaining()).isEqualTo(2);
        assertThat(admitted(instance(1), requests, 3))
                .as("the instance that refused admits the credit")
                .isEqualTo(2);
    }

    @Test
    void aFixedWindowCreditGoesPastTheLimitUntilTheWindowEnds() {
        RateLimit limit = RateLimit.of(fresh("fixed-credit"), Algorithm.FIXED_WINDOW, 3, HOUR_MS);
        List<LimitRequest> requests = List.of(request(limit, fresh("customer")));

        assertThat(instance(0).credit(requests, 2)).isEqualTo(2);

        Usage.Window window = instance(1).usage(requests).windows().get(0);
        assertThat(window.used()).isZero();
        assertThat(window.remaining()).isEqualTo(5);
        assertThat(admitted(instance(1), requests, 6)).isEqualTo(5);
    }

    /** A sliding window and a bucket hold nothing beyond their limit: a credit gives back at most what they counted. */
    @ParameterizedTest
    @EnumSource(
            value = Algorithm.class,
            names = {"SLIDING_WINDOW", "TOKEN_BUCKET"})
    void aCreditGivesBackAtMostWhatWasCounted(Algorithm algorithm) {
        RateLimit limit = RateLimit.of(fresh("capped-credit"), algorithm, 3, HOUR_MS);
        List<LimitRequest> requests = List.of(request(limit, fresh("customer")));
        assertThat(admitted(instance(0), requests, 1)).isEqualTo(1);

        assertThat(instance(1).credit(requests, 5)).isEqualTo(1);

        assertThat(instance(0).usage(requests).windows().get(0).remaining()).isEqualTo(3);
        assertThat(admitted(instance(1), requests, 4)).isEqualTo(3);
    }

    /** Credits sent at once from threads on both instances add up exactly: none is lost, none counted twice. */
    @Test
    void creditsMadeAtOnceAddUpExactly() throws Exception {
        RateLimit limit = RateLimit.of(fresh("concurrent-credit"), Algorithm.FIXED_WINDOW, 10, HOUR_MS);
        List<LimitRequest> requests = List.of(request(limit, fresh("customer")));
        AtomicLong granted = new AtomicLong();

        Threads.run(8, 5, (thread, i) -> granted.addAndGet(instance(thread).credit(requests, 1)));

        assertThat(granted.get()).isEqualTo(40);
        assertThat(instance(0).usage(requests).windows().get(0).remaining()).isEqualTo(50);
        assertThat(admitted(instance(1), requests, 51)).isEqualTo(50);
    }

    /** Several windows of one limit name (10 a minute and 20 an hour) are read and credited together. */
    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void theWindowsOfOneNameAreReadAndCreditedTogether(Algorithm algorithm) {
        String name = fresh("windows");
        RateLimit perMinute = RateLimit.of(name, algorithm, 10, 60_000);
        RateLimit perHour = RateLimit.of(name, algorithm, 20, HOUR_MS);
        String id = fresh("customer");
        List<LimitRequest> requests = List.of(request(perMinute, id), request(perHour, id));
        assertThat(admitted(instance(0), requests, 4)).isEqualTo(4);

        Usage read = instance(1).usage(requests);
        assertThat(read.windows()).extracting(Usage.Window::used).containsExactly(4L, 4L);
        assertThat(read.windows()).extracting(Usage.Window::remaining).containsExactly(6L, 16L);

        assertThat(instance(1).credit(requests, 3)).isEqualTo(3);

        assertThat(instance(0).usage(requests).windows())
                .extracting(Usage.Window::used)
                .containsExactly(1L, 1L);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aResetForgetsWhatWasCounted(Algorithm algorithm) {
        RateLimit limit = RateLimit.of(fresh("reset"), algorithm, 3, HOUR_MS);
        ClientIdentifier customer = ClientIdentifier.of("customer", fresh("value"));
        List<LimitRequest> requests = List.of(LimitRequest.of(limit, customer, 1));
        assertThat(admitted(instance(0), requests, 4)).isEqualTo(3);

        instance(1).reset(limit, customer);

        assertThat(instance(0).usage(requests).windows().get(0).used()).isZero();
        assertThat(admitted(instance(0), requests, 4)).isEqualTo(3);
    }
}
