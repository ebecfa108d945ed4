package io.github.ratelimit.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.tokens.SingleUseTokenException;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.spring.EngineContext;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * Each decision, token consumption and lock acquisition is an Observation with low-cardinality key values (names,
 * algorithms, outcome), never an identifier or a token; on plain Spring, the engine wired by hand ({@link
 * EngineContext}) with the observation listener.
 */
class ObservationTests {

    static class Service {
        @RateLimited(limit = 1, windowMs = 60_000, key = "#customer", name = "exports")
        public String export(String customer) {
            return "exported";
        }

        @SingleUse(purpose = "download", token = "#token")
        public String download(String token) {
            return "downloaded";
        }

        @Locked(name = "rebuild", key = "#customer")
        public String rebuild(String customer) {
            return "rebuilt";
        }
    }

    /** Keeps every stopped observation's name and key values. */
    static final class Recorder implements ObservationHandler<Observation.Context> {
        final List<Map<String, String>> stopped = new CopyOnWriteArrayList<>();

        @Override
        public void onStop(Observation.Context context) {
            Map<String, String> values = context.getLowCardinalityKeyValues().stream()
                    .collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
            values.put("name", context.getName());
            values.put(
                    "high",
                    String.valueOf(
                            context.getHighCardinalityKeyValues().stream().count()));
            stopped.add(values);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    @Test
    void decisionsTokensAndLocksAreObservedWithoutIdentifiers() {
        Recorder recorder = new Recorder();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(recorder);
        try (AnnotationConfigApplicationContext context = EngineContext.on("observed-" + UUID.randomUUID() + ":")
                .beans(Service.class)
                .bean(RateLimitListener.class, () -> new RateLimitObservationListener(registry))
                .start()) {
            Service service = context.getBean(Service.class);
            String customer = "customer-" + UUID.randomUUID();
            service.export(customer);
            assertThatThrownBy(() -> service.export(customer)).isInstanceOf(RateLimitExceededException.class);
            String token = context.getBean(SingleUseTokens.class)
                    .issue("download", Map.of(), Duration.ofMinutes(1))
                    .token();
            service.download(token);
            assertThatThrownBy(() -> service.download(token)).isInstanceOf(SingleUseTokenException.class);
            service.rebuild(customer);

            assertThat(recorder.stopped)
                    .filteredOn(o -> o.get("name").equals("ratelimit.decision"))
                    .extracting(o -> o.get("ratelimit.outcome"))
                    .containsExactly("allowed", "rejected");
            assertThat(recorder.stopped)
                    .filteredOn(o -> o.get("name").equals("ratelimit.decision"))
                    .allSatisfy(o -> {
                        assertThat(o).containsEntry("ratelimit.limits", "exports");
                        assertThat(o).containsEntry("ratelimit.algorithms", "sliding_window");
                    });
            assertThat(recorder.stopped)
                    .filteredOn(o -> o.get("name").equals("ratelimit.token.consume"))
                    .extracting(o -> o.get("ratelimit.outcome"))
                    .containsExactly("consumed", "already_used");
            assertThat(recorder.stopped)
                    .filteredOn(o -> o.get("name").equals("ratelimit.lock.acquire"))
                    .singleElement()
                    .satisfies(o -> assertThat(o)
                            .containsEntry("ratelimit.lock.name", "rebuild")
                            .containsEntry("ratelimit.outcome", "acquired"));
            assertThat(recorder.stopped.toString()).doesNotContain(customer).doesNotContain(token);
            assertThat(recorder.stopped).allSatisfy(o -> assertThat(o).containsEntry("high", "0"));
        }
    }
}
