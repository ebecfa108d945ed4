package io.github.ratelimit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.RateLimitListener.Completion;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The events of one implementation: each told to every listener in order, the end of an operation to the completion
 * each listener gave, a failing listener ignored; and no event of the listener SPI left out of the fan-out.
 */
class RateLimitEventsTest {

    private static final LimitRequest REQUEST = LimitRequest.of(
            RateLimit.of("reports", io.github.ratelimit.annotation.Algorithm.SLIDING_WINDOW, 5, 1000),
            ClientIdentifier.of("ip", "203.0.113.1"),
            1);

    /** Writes down what it is told, under its name. */
    static final class Recorder implements RateLimitListener {
        final String name;
        final List<String> told;

        Recorder(String name, List<String> told) {
            this.name = name;
            this.told = told;
        }

        @Override
        public Completion<Decision> deciding(List<LimitRequest> requests) {
            told.add(name + " deciding " + requests.get(0).limit().name());
            return new Completion<>() {
                @Override
                public void succeeded(Decision decision) {
                    told.add(name + " decided " + decision.allowed());
                }

                @Override
                public void failed(Throwable error) {
                    told.add(name + " failed " + error.getClass().getSimpleName());
                }
            };
        }

        @Override
        public void fellBack(String what, FailureMode mode) {
            told.add(name + " fell back " + what + " " + mode);
        }
    }

    @Test
    void everyEventOfTheListenerIsToldToTheListenersNoneLeftToItsDefault() {
        for (Method method : RateLimitListener.class.getDeclaredMethods()) {
            if (Modifier.isStatic(method.getModifiers()) || method.isSynthetic()) {
                continue;
            }
            assertThat(Arrays.stream(RateLimitEvents.class.getDeclaredMethods())
                            .anyMatch(own -> own.getName().equals(method.getName())
                                    && Arrays.equals(own.getParameterTypes(), method.getParameterTypes())))
                    .as("RateLimitEvents tells its listeners %s", method)
                    .isTrue();
        }
    }

    @Test
    void theStartAndTheEndAreToldToEachListenerInOrder() {
        List<String> told = new CopyOnWriteArrayList<>();
        RateLimitEvents events = new RateLimitEvents();
        events.add(new Recorder("one", told));
        events.add(new Recorder("two", told));
        Decision allowed = new Decision(true, List.of(), java.time.Instant.EPOCH);

        assertThat(RateLimitEvents.observe(events.deciding(List.of(REQUEST)), () -> allowed))
                .isSameAs(allowed);
        assertThatThrownBy(() -> RateLimitEvents.observe(events.deciding(List.of(REQUEST)), () -> {
                    throw new RedisUnavailableException("down", java.time.Duration.ofSeconds(1), null);
                }))
                .isInstanceOf(RedisUnavailableException.class);
        events.fellBack("reports", FailureMode.LOCAL);

        assertThat(told)
                .containsExactly(
                        "one deciding reports",
                        "two deciding reports",
                        "one decided true",
                        "two decided true",
                        "one deciding reports",
                        "two deciding reports",
                        "one failed RedisUnavailableException",
                        "two failed RedisUnavailableException",
                        "one fell back reports LOCAL",
                        "two fell back reports LOCAL");
    }

    @Test
    void anAsynchronousEndIsToldWhenItComesAndAFailedStartToo() {
        List<String> told = new CopyOnWriteArrayList<>();
        RateLimitEvents events = new RateLimitEvents();
        events.add(new Recorder("one", told));
        CompletableFuture<Decision> pending = new CompletableFuture<>();

        CompletableFuture<Decision> observed =
                RateLimitEvents.observeAsync(events.deciding(List.of(REQUEST)), () -> pending);
        assertThat(told).containsExactly("one deciding reports");
        pending.complete(new Decision(false, List.of(), java.time.Instant.EPOCH));
        assertThat(observed).isCompleted();
        assertThat(told).containsExactly("one deciding reports", "one decided false");

        CompletableFuture<Decision> failed = RateLimitEvents.observeAsync(events.deciding(List.of(REQUEST)), () -> {
            throw new IllegalArgumentException("bad limit");
        });
        assertThat(failed).isCompletedExceptionally();
        assertThat(told).endsWith("one failed IllegalArgumentException");
    }

    @Test
    void cancellingWhatACallerWasGivenCancelsTheOperation() {
        List<String> told = new CopyOnWriteArrayList<>();
        RateLimitEvents events = new RateLimitEvents();
        events.add(new Recorder("one", told));
        CompletableFuture<Decision> pending = new CompletableFuture<>();

        CompletableFuture<Decision> observed =
                RateLimitEvents.observeAsync(events.deciding(List.of(REQUEST)), () -> pending);
        assertThat(observed).isNotSameAs(pending);
        observed.cancel(false);
        assertThat(pending).isCancelled();
        assertThat(told).containsExactly("one deciding reports", "one failed CancellationException");
    }

    @Test
    void aListenerThatThrowsIsIgnoredAndTheOthersAreStillTold() {
        List<String> told = new CopyOnWriteArrayList<>();
        RateLimitEvents events = new RateLimitEvents();
        events.add(new RateLimitListener() {
            @Override
            public Completion<Decision> deciding(List<LimitRequest> requests) {
                throw new IllegalStateException("a broken listener");
            }

            @Override
            public void fellBack(String what, FailureMode mode) {
                throw new IllegalStateException("a broken listener");
            }
        });
        events.add(new Recorder("kept", told));
        Decision allowed = new Decision(true, List.of(), java.time.Instant.EPOCH);

        assertThat(RateLimitEvents.observe(events.deciding(List.of(REQUEST)), () -> allowed))
                .isSameAs(allowed);
        events.fellBack("reports", FailureMode.OPEN);
        assertThat(told).containsExactly("kept deciding reports", "kept decided true", "kept fell back reports OPEN");
    }

    @Test
    void aListenerIsAddedOnceAndCanBeRemoved() {
        List<String> told = new CopyOnWriteArrayList<>();
        RateLimitEvents events = new RateLimitEvents();
        Recorder recorder = new Recorder("one", told);
        events.add(recorder);
        events.add(recorder);
        assertThat(events.listeners()).containsExactly(recorder);
        assertThatThrownBy(() -> events.add(events)).isInstanceOf(IllegalArgumentException.class);

        assertThat(events.remove(recorder)).isTrue();
        assertThat(events.remove(recorder)).isFalse();
        assertThat(events.deciding(List.of(REQUEST))).isSameAs(Completion.ignored());
    }
}
