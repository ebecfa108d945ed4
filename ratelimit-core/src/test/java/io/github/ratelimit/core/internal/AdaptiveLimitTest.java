package io.github.ratelimit.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.AdaptivePermit;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.Status;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.Steering;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.internal.AdaptiveLimit.State;
import io.github.ratelimit.core.internal.AdaptiveLimit.Window;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The adaptive limit's step, window by window, against a dependency whose capacity it is not told: {@code C} calls at
 * once at latency {@code L0}, the rest queued, so that latency grows with what exceeds {@code C}. The load is open and
 * three times the capacity, so every window is saturated at the limit. Windows are counted, not timed: no clock.
 */
class AdaptiveLimitTest {

    static final long L0 = 10_000; // µs
    static final long WINDOW = 10 * L0;
    static final AdaptiveSettings SETTINGS = new AdaptiveSettings(1, 1_000, 10, 1.25, Duration.ofMillis(100));
    /** Windows within which the limit must reach [0.8 C, 1.3 C] after a start or a step. */
    static final int K = 12;

    /** A dependency of capacity {@code capacity}, {@code slowdown} times its no-load latency. */
    record Dependency(int capacity, long slowdown) {

        /** One window at this limit, under open load of three times the capacity: saturated. */
        Window windowAt(State state) {
            long inFlight = Math.min(state.slots(), 3L * capacity);
            long latency = L0 * slowdown * Math.max(1, inFlight) / Math.max(1, Math.min(inFlight, capacity));
            long completed = Math.max(1, inFlight * WINDOW / latency); // what completes in a window of 10 L0
            // every call of the window takes the same latency: all slower than tolerated, or none
            long tolerated = (long) (SETTINGS.tolerance() * state.noLoadMicros());
            long slow = state.noLoadMicros() > 0 && latency > tolerated ? completed : 0;
            return new Window(
                    completed,
                    completed * latency,
                    latency,
                    slow,
                    0,
                    Math.max(0, 3L * capacity * 10 - completed),
                    inFlight);
        }

        long latencyAt(State state) {
            return windowAt(state).lowestLatencyMicros();
        }
    }

    /** Runs windows and records the limit after each. */
    static final class Run {
        State state = AdaptiveLimit.start(SETTINGS);
        final List<Integer> limits = new ArrayList<>();

        Run windows(int count, Dependency dependency) {
            for (int i = 0; i < count; i++) {
                state = AdaptiveLimit.next(SETTINGS, state, dependency.windowAt(state));
                limits.add(state.slots());
            }
            return this;
        }

        /** The windows, from {@code from}, until the limit was within [0.8, 1.3] of the capacity and stayed. */
        int windowsToSettle(int from, int capacity) {
            int settledAt = -1;
            for (int i = from; i < limits.size(); i++) {
                boolean within = limits.get(i) >= 0.8 * capacity && limits.get(i) <= 1.3 * capacity;
                if (!within) {
                    settledAt = -1;
                } else if (settledAt < 0) {
                    settledAt = i;
                }
            }
            return settledAt < 0 ? Integer.MAX_VALUE : settledAt - from + 1;
        }
    }

    @Test
    void convergesOnAHiddenCapacityAndFollowsItDownAndUp() {
        Dependency full = new Dependency(100, 1);
        Dependency halved = new Dependency(50, 1);
        Run run = new Run().windows(40, full);
        assertThat(run.windowsToSettle(0, 100))
                .as("windows to converge, limits %s", run.limits)
                .isLessThanOrEqualTo(K);
        // what was admitted stays within the tolerated latency once settled
        assertThat(full.latencyAt(run.state)).isLessThanOrEqualTo((long) (SETTINGS.tolerance() * L0));

        run.windows(40, halved);
        assertThat(run.windowsToSettle(40, 50))
                .as("step down, limits %s", run.limits)
                .isLessThanOrEqualTo(K);
        assertThat(halved.latencyAt(run.state)).isLessThanOrEqualTo((long) (SETTINGS.tolerance() * L0));

        run.windows(40, full);
        assertThat(run.windowsToSettle(80, 100))
                .as("step up, limits %s", run.limits)
                .isLessThanOrEqualTo(K);
    }

    /** Goodput: once settled, at least 90 % of what the capacity completes in a window ({@code C} calls per L0). */
    @Test
    void keepsTheDependencyBusy() {
        Dependency dependency = new Dependency(100, 1);
        Run run = new Run().windows(30, dependency);
        assertThat(dependency.windowAt(run.state).completed()).isGreaterThanOrEqualTo((long) (0.9 * 100 * WINDOW / L0));
    }

    /** A long incident at ten times the no-load latency: the limit never creeps up, and the no-load latency holds. */
    @Test
    void aLongIncidentNeitherRaisesTheLimitNorTheNoLoadLatency() {
        Run run = new Run().windows(30, new Dependency(100, 1));
        long noLoad = run.state.noLoadMicros();
        int before = run.state.slots();
        int highest = 0;
        for (int i = 0; i < 200; i++) {
            int was = run.state.slots();
            run.windows(1, new Dependency(100, 10));
            assertThat(run.state.slots()).as("window %s of the incident", i).isLessThanOrEqualTo(Math.max(was, 1));
            highest = Math.max(highest, run.state.slots());
        }
        assertThat(highest).isLessThanOrEqualTo(before);
        assertThat(run.state.noLoadMicros()).isEqualTo(noLoad);
        // and when the incident ends, the limit finds the capacity again
        run.windows(30, new Dependency(100, 1));
        assertThat(run.windowsToSettle(230, 100))
                .as("after the incident, %s", run.limits)
                .isLessThanOrEqualTo(2 * K);
    }

    /** A window of refusals or drops alone, from any state, never raises the limit. */
    @Test
    void aWindowOfOnlyRefusalsOrDropsNeverRaisesIt() {
        Random random = new Random(86);
        for (int i = 0; i < 10_000; i++) {
            State state = new State(
                    1 + random.nextInt(999) + random.nextDouble(), random.nextInt(100_000), random.nextBoolean());
            Window nothingMeasured =
                    new Window(0, 0, 0, 0, random.nextInt(50), random.nextInt(500), random.nextInt(2_000));
            State next = AdaptiveLimit.next(SETTINGS, state, nothingMeasured);
            assertThat(next.limit()).isLessThanOrEqualTo(state.limit());
            assertThat(next.noLoadMicros()).isEqualTo(state.noLoadMicros());
        }
    }

    /** Drops (timeouts, errors) from a tenth of the calls back the limit off, even while they look fast. */
    @Test
    void dropsBackTheLimitOff() {
        State state = new State(100, L0, false);
        Window fastButFailing = new Window(80, 80 * L0 / 2, L0 / 2, 0, 20, 0, 100);
        State next = AdaptiveLimit.next(SETTINGS, state, fastButFailing);
        assertThat(next.limit()).isEqualTo(90.0);
        assertThat(next.slowStart()).isFalse();
    }

    /** Modest load (a limit far from used) holds the limit: it never grows without end where nothing presses on it. */
    @Test
    void anUnusedLimitDoesNotGrow() {
        State state = new State(100, L0, false);
        for (int i = 0; i < 100; i++) {
            state = AdaptiveLimit.next(SETTINGS, state, new Window(400, 400 * L0, L0, 0, 0, 0, 40));
        }
        assertThat(state.limit()).isEqualTo(100.0);
    }

    /**
     * An operator's pin holds the limit whatever the latency, bounds move a limit that would hold outside them, and once
     * cleared the limit goes on from where the pin left it, without a new slow start.
     */
    @Test
    void anOperatorPinsTheLimitOrMovesItsBounds() {
        Run run = new Run().windows(30, new Dependency(100, 1));
        long noLoad = run.state.noLoadMicros();
        Steering pin = new Steering(300, null, null);
        for (Dependency dependency : List.of(new Dependency(100, 10), new Dependency(100, 1))) {
            for (int i = 0; i < 20; i++) {
                run.state = AdaptiveLimit.next(SETTINGS, pin, run.state, dependency.windowAt(run.state));
                assertThat(run.state.limit()).isEqualTo(300.0);
            }
        }
        assertThat(run.state.slowStart()).isFalse();
        assertThat(run.state.noLoadMicros())
                .as("the step goes on under the pin")
                .isEqualTo(noLoad);
        run.windows(K, new Dependency(100, 1));
        assertThat(run.state.slots())
                .as("cleared, the limit shrinks from the pin to the capacity, %s", run.limits)
                .isBetween(80, 130);

        Steering bounds = new Steering(null, 5, 20);
        State held = new State(100, L0, false);
        Window unused = new Window(400, 400 * L0, L0, 0, 0, 0, 40); // a window that holds the limit
        assertThat(AdaptiveLimit.next(SETTINGS, bounds, held, unused).limit()).isEqualTo(20.0);
        assertThat(AdaptiveLimit.next(SETTINGS, new Steering(null, 200, null), held, unused)
                        .limit())
                .isEqualTo(200.0);
        // a bound crossing the declared other one moves it along
        assertThat(new Steering(null, 2_000, null).bounds(SETTINGS).max()).isEqualTo(2_000);
        assertThat(new Steering(null, null, 5).bounds(new AdaptiveSettings(10, 100, 50, 2.0, Duration.ofSeconds(1))))
                .isEqualTo(new AdaptiveSettings(5, 5, 5, 2.0, Duration.ofSeconds(1)));
    }

    @Test
    void badSteeringsAreNamed() {
        assertThatThrownBy(() -> new Steering(null, null, null)).hasMessageContaining("pins the limit or sets");
        assertThatThrownBy(() -> new Steering(0, null, null)).hasMessage("pin must be at least 1, but was 0");
        assertThatThrownBy(() -> new Steering(null, 0, null)).hasMessage("min must be at least 1, but was 0");
        assertThatThrownBy(() -> new Steering(null, 10, 5)).hasMessage("max must be at least min 10, but was 5");
    }

    /**
     * In memory, on a clock the test moves: a window's outcomes are listed as the step left them, newest first and at
     * most 30; the permit tells the limit, the calls in flight and the latencies; a pin applies from the next window.
     */
    @Test
    void theMemoryStoreListsItsWindowsAndTakesASteering() {
        AtomicLong now = new AtomicLong();
        AdaptiveSlots slots = new AdaptiveSlots(now::get);
        AdaptiveSettings settings =
                new AdaptiveSettings(2, 100, 4, 2.0, Duration.ofMillis(100)); // drops back it off to 2
        ClientIdentifier key = ClientIdentifier.of("dependency");
        long window = Duration.ofMillis(100).toNanos();
        assertThat(slots.status("db", key)).isNull();

        for (int w = 0; w < 35; w++) {
            now.set(w * window);
            AdaptivePermit first = slots.tryAcquire("db", key, settings, Duration.ofSeconds(1), Duration.ofSeconds(1));
            AdaptivePermit second = slots.tryAcquire("db", key, settings, Duration.ofSeconds(1), Duration.ofSeconds(1));
            assertThat(second.inFlight()).isEqualTo(2);
            now.addAndGet(Duration.ofMillis(10).toNanos());
            first.release();
            if (w % 2 == 1) {
                second.drop();
            } else {
                second.release(); // a window without drops measures the no-load latency
            }
        }
        Status status = slots.status("db", key);
        assertThat(status.windows()).hasSize(Status.WINDOWS_KEPT);
        assertThat(status.windows().get(0).index()).isEqualTo(33);
        assertThat(status.windows().get(29).index()).isEqualTo(4);
        assertThat(status.windows().get(0))
                .isEqualTo(new io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.Window(
                        33, status.limit(), 1, 1, 0, 2, Duration.ofMillis(10)));
        assertThat(status.noLoad()).isEqualTo(Duration.ofMillis(10));

        slots.steer("db", key, new Steering(1, null, null));
        assertThat(slots.status("db", key).steering()).isEqualTo(new Steering(1, null, null));
        now.set(36 * window);
        AdaptivePermit only = slots.tryAcquire("db", key, settings, Duration.ofSeconds(1), Duration.ofSeconds(1));
        assertThat(only.limit()).isEqualTo(1);
        assertThat(only.recentLatency()).isEqualTo(Duration.ofMillis(10));
        assertThatThrownBy(() -> slots.tryAcquire("db", key, settings, Duration.ofSeconds(1), Duration.ofSeconds(1)))
                .isInstanceOfSatisfying(ConcurrencyLimitExceededException.class, e -> assertThat(e.max())
                        .isEqualTo(1));
        slots.steer("db", key, null);
        assertThat(slots.status("db", key).steering()).isNull();
    }

    @Test
    void badSettingsAreNamed() {
        Duration window = Duration.ofSeconds(1);
        assertThatThrownBy(() -> new AdaptiveSettings(0, 10, 5, 1.5, window)).hasMessageContaining("min");
        assertThatThrownBy(() -> new AdaptiveSettings(5, 4, 5, 1.5, window))
                .hasMessage("max must be at least min 5, but was 4");
        assertThatThrownBy(() -> new AdaptiveSettings(1, 10, 11, 1.5, window))
                .hasMessage("initial must be from min 1 to max 10, but was 11");
        assertThatThrownBy(() -> new AdaptiveSettings(1, 10, 5, 1.0, window))
                .hasMessageStartingWith("tolerance must be more than 1");
        assertThatThrownBy(() -> new AdaptiveSettings(1, 10, 5, 1.5, Duration.ofMillis(9)))
                .hasMessage("window must be at least 10 ms, but was PT0.009S");
    }
}
