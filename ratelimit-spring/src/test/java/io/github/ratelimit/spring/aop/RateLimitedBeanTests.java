package io.github.ratelimit.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.spring.EngineContext;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/** {@code @RateLimited} on plain beans (no web request): the exception is the caller's to handle. */
class RateLimitedBeanTests {

    /** The application of these tests: the engine wired by hand on plain Spring ({@link EngineContext}). */
    private static EngineContext engine() {
        return EngineContext.on("beans:").beans(Reports.class, Other.class);
    }

    static class Reports {
        private int runs;

        public int runs() {
            return runs; // through the proxy, reaches the target
        }

        @RateLimited(limit = 2, windowMs = 60_000, key = "#tenant")
        public String generate(String tenant) {
            runs++;
            return "report for " + tenant;
        }

        @RateLimited(limit = 10, windowMs = 60_000, key = "#tenant", cost = "#pages")
        public int print(String tenant, int pages) {
            return pages;
        }

        @RateLimited(
                limit = 3,
                windowMs = 60_000,
                key = {"#tenant", "#user ?: {}"})
        public void export(String tenant, String user) {}

        @RateLimited(limit = 1, windowMs = 60_000, key = "#tenant")
        @RateLimited(limit = 5, windowMs = 3_600_000, key = "#tenant")
        public void twoLimits(String tenant) {}

        @RateLimited(limit = 10, windowMs = 60_000, key = "#user", charge = "#result ?: 4")
        public Integer used(String user, int tokens, boolean fail) {
            if (fail) {
                throw new IllegalStateException("failed");
            }
            return tokens;
        }

        @RateLimited(limit = 10, windowMs = 60_000, key = "#user", charge = "#result ?: 4", chargeFailures = true)
        public Integer usedOrFailed(String user, int tokens, boolean fail) {
            if (fail) {
                throw new IllegalStateException("failed");
            }
            return tokens;
        }

        @RateLimited(limit = 1, windowMs = 60_000, key = "#tenant", algorithm = Algorithm.TOKEN_BUCKET)
        public CompletionStage<String> later(String tenant) {
            return CompletableFuture.completedFuture("done");
        }

        @RateLimited(limit = 2, windowMs = 60_000, key = "#tenant", name = "shared-budget")
        public void first(String tenant) {}

        @RateLimited(limit = 2, windowMs = 60_000, key = "#client")
        public void byClient() {}

        @RateLimited(limit = 1, windowMs = 60_000, key = "#tenant", name = "enforced-with-shadow")
        @RateLimited(limit = 1, windowMs = 60_000, key = "#tenant", name = "trial", shadow = true)
        public int withShadow(String tenant) {
            return ++runs;
        }
    }

    static class Other {
        @RateLimited(limit = 2, windowMs = 60_000, key = "#tenant", name = "shared-budget")
        public void second(String tenant) {}
    }

    static String tenant() {
        return "t-" + UUID.randomUUID();
    }

    @Test
    void refusesTheCallOnceTheLimitIsReachedWithoutRunningTheMethod() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Reports reports = context.getBean(Reports.class);
            String tenant = tenant();
            reports.generate(tenant);
            reports.generate(tenant);
            assertThatThrownBy(() -> reports.generate(tenant))
                    .isInstanceOf(RateLimitExceededException.class)
                    .hasMessageContaining("Reports.generate");
            assertThat(reports.runs()).isEqualTo(2);
            assertThat(reports.generate(tenant())).startsWith("report for");
        }
    }

    /**
     * 10 units, charged what the result says after the call: admitted while anything is left, past zero after; a call
     * that throws is charged only when chargeFailures says so ({@code #result} null, so 4).
     */
    @Test
    void callsAreChargedWhatTheyUsedAfterTheyRan() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Reports reports = context.getBean(Reports.class);
            String user = "u-" + java.util.UUID.randomUUID();
            assertThat(reports.used(user, 6, false)).isEqualTo(6);
            assertThatThrownBy(() -> reports.used(user, 0, true)).isInstanceOf(IllegalStateException.class);
            assertThat(reports.used(user, 6, false)).isEqualTo(6); // 4 were left: admitted, and now past zero
            assertThatThrownBy(() -> reports.used(user, 1, false)).isInstanceOf(RateLimitExceededException.class);

            String other = "u-" + java.util.UUID.randomUUID();
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> reports.usedOrFailed(other, 0, true))
                        .isInstanceOf(IllegalStateException.class);
            }
            assertThatThrownBy(() -> reports.usedOrFailed(other, 1, false))
                    .isInstanceOf(RateLimitExceededException.class);
        }
    }

    @Test
    void costComesFromTheArguments() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Reports reports = context.getBean(Reports.class);
            String tenant = tenant();
            reports.print(tenant, 7);
            assertThatThrownBy(() -> reports.print(tenant, 4)).isInstanceOf(RateLimitExceededException.class);
            assertThat(reports.print(tenant, 3)).isEqualTo(3);
            assertThat(reports.print(tenant, 0)).isZero();
        }
    }

    @Test
    void costAboveTheLimitIsAClearError() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            assertThatThrownBy(() -> context.getBean(Reports.class).print(tenant(), 11))
                    .isInstanceOf(RateLimitEvaluationException.class)
                    .hasMessageContaining("evaluated to 11, outside 0..10");
        }
    }

    @Test
    void nullKeyIsAnErrorNotASharedBucket() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            assertThatThrownBy(() -> context.getBean(Reports.class).generate(null))
                    .isInstanceOf(RateLimitEvaluationException.class)
                    .hasMessageContaining("'#tenant'")
                    .hasMessageContaining("evaluated to null");
        }
    }

    @Test
    void emptyKeyIsAnError() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            assertThatThrownBy(() -> context.getBean(Reports.class).generate(" "))
                    .isInstanceOf(RateLimitEvaluationException.class)
                    .hasMessageContaining("empty");
        }
    }

    @Test
    void defaultClientKeyOutsideARequestIsAnError() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            assertThatThrownBy(() -> context.getBean(Reports.class).byClient())
                    .isInstanceOf(RateLimitEvaluationException.class)
                    .hasMessageContaining("'#client'");
        }
    }

    @Test
    void optionalIdentifierIsLimitedOnlyWhenPresentAndEachIdentifierOnItsOwn() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Reports reports = context.getBean(Reports.class);
            String tenant = tenant();
            String user = "u-" + UUID.randomUUID();
            reports.export(tenant, user);
            reports.export(tenant, user);
            reports.export(tenant, null); // tenant 3/3, user 2/3
            assertThatThrownBy(() -> reports.export(tenant, "someone-else"))
                    .isInstanceOf(RateLimitExceededException.class);
            // the user still has one left, under another tenant
            reports.export(tenant(), user);
            assertThatThrownBy(() -> reports.export(tenant(), user)).isInstanceOf(RateLimitExceededException.class);
        }
    }

    @Test
    void repeatedAnnotationsAreAllEnforced() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Reports reports = context.getBean(Reports.class);
            String tenant = tenant();
            reports.twoLimits(tenant);
            RateLimitExceededException e = org.junit.jupiter.api.Assertions.assertThrows(
                    RateLimitExceededException.class, () -> reports.twoLimits(tenant));
            assertThat(e.decision().outcomes()).hasSize(2);
            assertThat(e.decision().rejected()).hasSize(1);
            assertThat(e.decision().rejected().get(0).request().limit().windowMs())
                    .isEqualTo(60_000);
            assertThat(e.decision().outcomes().get(1).remaining()).isEqualTo(4);
        }
    }

    @Test
    void completionStageMethodsGetAFailedFuture() throws Exception {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Reports reports = context.getBean(Reports.class);
            String tenant = tenant();
            assertThat(reports.later(tenant).toCompletableFuture().get()).isEqualTo("done");
            CompletionStage<String> refused = reports.later(tenant);
            assertThatThrownBy(() -> refused.toCompletableFuture().get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(RateLimitExceededException.class);
        }
    }

    @Test
    void methodsSharingANameShareTheBudget() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            String tenant = tenant();
            context.getBean(Reports.class).first(tenant);
            context.getBean(Other.class).second(tenant);
            assertThatThrownBy(() -> context.getBean(Reports.class).first(tenant))
                    .isInstanceOf(RateLimitExceededException.class);
            assertThatThrownBy(() -> context.getBean(Other.class).second(tenant))
                    .isInstanceOf(RateLimitExceededException.class)
                    .satisfies(e -> assertThat(((RateLimitExceededException) e)
                                    .decision()
                                    .rejected()
                                    .get(0)
                                    .request()
                                    .limit()
                                    .name())
                            .isEqualTo("shared-budget"));
        }
    }

    @Test
    void hostileKeysAreHashedIntoOneSlotPerIdentifier() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Reports reports = context.getBean(Reports.class);
            for (String hostile : List.of("{a}", "a}{b", "line\nbreak", "x".repeat(8192))) {
                String tenant = hostile + UUID.randomUUID();
                reports.generate(tenant);
                reports.generate(tenant);
                assertThatThrownBy(() -> reports.generate(tenant)).isInstanceOf(RateLimitExceededException.class);
            }
            List<Object> keys = io.github.ratelimit.fixtures.RedisCommands.call(
                    context.getBean(org.redisson.api.RedissonClient.class), "KEYS", "beans:*");
            // the instances' announcements (beans:instances, written every 2 s) are the only other key; charges after
            // a call leave a marker of their attempt in the slot they charged (other tests of this context charge)
            assertThat(keys.stream().map(String::valueOf).filter(key -> !key.equals("beans:instances")))
                    .isNotEmpty()
                    .allSatisfy(key -> assertThat(key)
                            .matches("beans:v5:\\{[A-Za-z0-9_-]{22}\\}:([A-Za-z0-9._:/-]+:(sw|fw|tb\\d+)/\\d+"
                                    + "|ch:[0-9a-f]+\\.[0-9a-f]+)"));
        }
    }

    @Test
    void shadowLimitsCountButNeverRefuse() {
        try (AnnotationConfigApplicationContext context = engine().start()) {
            Reports reports = context.getBean(Reports.class);
            String tenant = tenant();
            reports.withShadow(tenant);
            RateLimitExceededException refused = org.junit.jupiter.api.Assertions.assertThrows(
                    RateLimitExceededException.class, () -> reports.withShadow(tenant));
            // only the enforced limit refused; the shadow one would have too, and says so
            assertThat(refused.decision().rejected())
                    .extracting(o -> o.request().limit().name())
                    .containsExactly("enforced-with-shadow");
            assertThat(refused.decision().shadowRejected())
                    .extracting(o -> o.request().limit().name())
                    .containsExactly("trial");
        }
    }

    @Test
    void globalShadowModeNeverRefuses() {
        try (AnnotationConfigApplicationContext context = engine().shadow().start()) {
            Reports reports = context.getBean(Reports.class);
            String tenant = tenant();
            for (int i = 0; i < 5; i++) {
                reports.generate(tenant);
            }
            assertThat(reports.runs()).isEqualTo(5);
        }
    }
}
