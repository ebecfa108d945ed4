package io.github.ratelimit.test.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter.Permit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The promises of a {@link ConcurrencyLimiter}, for any store: extend it, make the limiter in {@link #newInstance()}.
 * Never more than {@code max} calls of a key in progress across instances; a slot given back is taken again, and
 * giving it back twice frees one slot only; a slot whose holder vanished comes back when its lease runs out; keys and
 * names count apart.
 */
public abstract class ConcurrencyLimiterContract extends TwoInstances<ConcurrencyLimiter> {

    private static final Duration LEASE = Duration.ofSeconds(10);

    @Test
    void neverMoreThanMaxInProgressAcrossInstances() throws Exception {
        String name = fresh("export");
        ClientIdentifier client = ClientIdentifier.of(fresh("client"));
        AtomicInteger inProgress = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();

        Threads.run(24, 10, (thread, i) -> {
            try (Permit permit = instance(thread).tryAcquire(name, client, 3, LEASE, LEASE)) {
                most.accumulateAndGet(inProgress.incrementAndGet(), Math::max);
                admitted.incrementAndGet();
                Thread.sleep(1);
                inProgress.decrementAndGet();
            } catch (ConcurrencyLimitExceededException e) {
                assertThat(e.max()).isEqualTo(3);
                assertThat(e.name()).isEqualTo(name);
                refused.incrementAndGet();
            }
        });

        assertThat(most.get()).isBetween(1, 3);
        assertThat(admitted.get() + refused.get()).isEqualTo(240);
        assertThat(admitted.get()).isPositive();
    }

    @Test
    void exactlyMaxSlotsAndASlotGivenBackTwiceFreesOne() {
        String name = fresh("export");
        ClientIdentifier client = ClientIdentifier.of(fresh("client"));
        Permit first = instance(0).tryAcquire(name, client, 2, LEASE, LEASE);
        Permit second = instance(1).tryAcquire(name, client, 2, LEASE, LEASE);
        assertThatThrownBy(() -> instance(0).tryAcquire(name, client, 2, LEASE, LEASE))
                .isInstanceOf(ConcurrencyLimitExceededException.class);
        assertThat(instance(1)
                        .tryAcquire(name, ClientIdentifier.of(fresh("other")), 2, LEASE, LEASE)
                        .release())
                .as("another client's slots")
                .isTrue();

        assertThat(first.release()).isTrue();
        assertThat(first.release()).isFalse();

        Permit third = instance(1).tryAcquire(name, client, 2, LEASE, LEASE);
        assertThatThrownBy(() -> instance(0).tryAcquire(name, client, 2, LEASE, LEASE))
                .isInstanceOf(ConcurrencyLimitExceededException.class);
        second.release();
        third.release();
    }

    /** A slot never given back (its holder crashed) comes back once its lease has run out. */
    @Test
    void aSlotNeverGivenBackComesBackAfterItsLease() {
        String name = fresh("export");
        ClientIdentifier client = ClientIdentifier.of(fresh("client"));
        Duration shortLease = Duration.ofMillis(300);
        instance(0).tryAcquire(name, client, 1, shortLease, shortLease);

        Poll.until("the abandoned slot to come back", Duration.ofSeconds(10), () -> {
            try {
                instance(1).tryAcquire(name, client, 1, LEASE, LEASE).release();
                return true;
            } catch (ConcurrencyLimitExceededException e) {
                return false;
            }
        });
    }
}
