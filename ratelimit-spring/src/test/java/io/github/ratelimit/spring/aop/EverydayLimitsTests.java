package io.github.ratelimit.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.CountOn;
import io.github.ratelimit.annotation.NotRateLimited;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.core.LimitOverrides;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.spring.EngineContext;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import reactor.core.publisher.Mono;

/**
 * The limits users write every day, on a real Redis and two instances: class-level limits and their exemptions,
 * composed annotations, fallbacks called with the right arguments, and counting failed calls only; on plain Spring, the
 * engine wired by hand ({@link EngineContext}).
 */
class EverydayLimitsTests {

    /** A composed annotation: the limit written once. */
    @Target({ElementType.METHOD, ElementType.TYPE})
    @Retention(RetentionPolicy.RUNTIME)
    @RateLimited(limit = 2, windowMs = 60_000, key = "'all'")
    @interface TwoPerMinute {}

    /** Every public method limited by the class, one budget each; one method has its own; one is exempt. */
    @RateLimited(limit = 1, windowMs = 60_000, key = "'all'")
    static class Catalog {
        public String list() {
            return "list";
        }

        public String item() {
            return "item";
        }

        @RateLimited(limit = 3, windowMs = 60_000, key = "'all'")
        public String search() {
            return "search";
        }

        @NotRateLimited
        public String health() {
            return "ok";
        }

        @Override
        public String toString() {
            return "catalog";
        }
    }

    @TwoPerMinute
    static class Composed {
        public String one() {
            return "one";
        }
    }

    static class Reports {
        private final List<Object[]> fallbackCalls = new ArrayList<>();

        public List<Object[]> fallbackCalls() {
            return fallbackCalls;
        }

        @TwoPerMinute
        public String composedOnMethod() {
            return "composed";
        }

        @RateLimited(limit = 1, windowMs = 60_000, key = "#id", fallback = "cached")
        public String report(String id, int page) {
            return "fresh " + id + " " + page;
        }

        public String cached(String id, int page, RateLimitExceededException refusal) {
            fallbackCalls.add(new Object[] {id, page, refusal});
            return "cached " + id + " " + page;
        }

        @RateLimited(limit = 1, windowMs = 60_000, key = "#id", fallback = "cachedMono")
        public Mono<String> reportMono(String id) {
            return Mono.just("fresh " + id);
        }

        public Mono<String> cachedMono(String id) {
            return Mono.just("cached " + id);
        }

        @RateLimited(limit = 1, windowMs = 60_000, key = "#id", fallback = "cachedStage")
        public CompletionStage<String> reportStage(String id) {
            return CompletableFuture.completedFuture("fresh " + id);
        }

        public CompletionStage<String> cachedStage(String id) {
            return CompletableFuture.completedFuture("cached " + id);
        }
    }

    static class Login {
        @RateLimited(limit = 3, windowMs = 60_000, key = "#user", countOn = CountOn.FAILURE)
        public ResponseEntity<String> login(String user, String password) {
            return "secret".equals(password)
                    ? ResponseEntity.ok("welcome")
                    : ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("no");
        }

        @RateLimited(limit = 2, windowMs = 60_000, key = "#user", countOn = CountOn.FAILURE)
        public String throwing(String user, boolean fail) {
            if (fail) {
                throw new IllegalArgumentException("bad");
            }
            return "fine";
        }

        @RateLimited(limit = 2, windowMs = 60_000, key = "#user", countOn = CountOn.FAILURE)
        public Mono<String> reactive(String user, boolean fail) {
            return fail ? Mono.error(new IllegalStateException("bad")) : Mono.just("fine");
        }
    }

    static class BadFallbackName {
        @RateLimited(limit = 1, windowMs = 1_000, fallback = "nowhere")
        public String call(String id) {
            return id;
        }
    }

    static class BadFallbackType {
        @RateLimited(limit = 1, windowMs = 1_000, fallback = "other")
        public String call(String id) {
            return id;
        }

        public Integer other(String id) {
            return 1;
        }
    }

    @Test
    void classLimitsApplyToEveryPublicMethodAMethodsOwnReplacesThemAndAnExemptionWorks() {
        try (AnnotationConfigApplicationContext context = EngineContext.on("everyday-" + UUID.randomUUID() + ":")
                .beans(Catalog.class, Composed.class)
                .start()) {
            Catalog catalog = context.getBean(Catalog.class);
            assertThat(catalog.list()).isEqualTo("list");
            assertThatThrownBy(catalog::list).isInstanceOf(RateLimitExceededException.class);
            assertThat(catalog.item()).as("a budget per method").isEqualTo("item");
            assertThatThrownBy(catalog::item).isInstanceOf(RateLimitExceededException.class);
            for (int i = 0; i < 3; i++) {
                assertThat(catalog.search())
                        .as("the method's own 3 replace the class's 1")
                        .isEqualTo("search");
            }
            assertThatThrownBy(catalog::search).isInstanceOf(RateLimitExceededException.class);
            for (int i = 0; i < 5; i++) {
                assertThat(catalog.health()).isEqualTo("ok");
            }
            for (int i = 0; i < 3; i++) {
                assertThat(catalog.toString()).as("toString is not a handler").isEqualTo("catalog");
            }
            Composed composed = context.getBean(Composed.class);
            composed.one();
            composed.one();
            assertThatThrownBy(composed::one).isInstanceOf(RateLimitExceededException.class);
        }
    }

    @Test
    void fallbacksAreCalledWithTheCallsArgumentsInEveryShape() throws Exception {
        try (AnnotationConfigApplicationContext context = EngineContext.on("everyday-" + UUID.randomUUID() + ":")
                .beans(Reports.class)
                .start()) {
            Reports reports = context.getBean(Reports.class);
            assertThat(reports.composedOnMethod()).isEqualTo("composed");
            assertThat(reports.composedOnMethod()).isEqualTo("composed");
            assertThatThrownBy(reports::composedOnMethod).isInstanceOf(RateLimitExceededException.class);

            assertThat(reports.report("a", 1)).isEqualTo("fresh a 1");
            assertThat(reports.report("a", 2)).isEqualTo("cached a 2");
            assertThat(reports.fallbackCalls()).singleElement().satisfies(call -> {
                assertThat(call[0]).isEqualTo("a");
                assertThat(call[1]).isEqualTo(2);
                assertThat(call[2]).isInstanceOf(RateLimitExceededException.class);
            });
            assertThat(reports.reportMono("b").block()).isEqualTo("fresh b");
            assertThat(reports.reportMono("b").block()).isEqualTo("cached b");
            assertThat(reports.reportStage("c").toCompletableFuture().get(5, TimeUnit.SECONDS))
                    .isEqualTo("fresh c");
            assertThat(reports.reportStage("c").toCompletableFuture().get(5, TimeUnit.SECONDS))
                    .isEqualTo("cached c");
        }
    }

    @Test
    void aWrongFallbackFailsTheStartNamingBothMethods() {
        assertThatThrownBy(() -> EngineContext.on("everyday-start:")
                        .beans(BadFallbackName.class)
                        .start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("BadFallbackName.call(String)")
                .hasMessageContaining("fallback 'nowhere' must be a method BadFallbackName.nowhere(String)");
        assertThatThrownBy(() -> EngineContext.on("everyday-start:")
                        .beans(BadFallbackType.class)
                        .start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("fallback BadFallbackType.other returns Integer");
    }

    /** Failed logins count, successful ones never; after 3 failures even the right password is refused. */
    static class Guarded {
        @RateLimited(name = "guarded", limit = 5, windowMs = 60_000, key = "#user", countOn = CountOn.FAILURE)
        public String attempt(String user, boolean fail) {
            if (fail) {
                throw new IllegalArgumentException("bad");
            }
            return "fine";
        }
    }

    /** One override, as an operator set it. */
    record Overridden(String name, LimitOverrides.Change change) implements LimitOverrides {
        @Override
        public LimitOverrides.Change get(String limit) {
            return name.equals(limit) ? change : null;
        }

        @Override
        public void set(String limit, LimitOverrides.Change override) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean remove(String limit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.util.Map<String, LimitOverrides.Change> list() {
            return java.util.Map.of(name, change);
        }
    }

    /** Regression: an operator's override made the failures of a limit that counts failures only go uncounted. */
    @Test
    void anOverriddenLimitThatCountsFailuresStillCountsThem() {
        try (AnnotationConfigApplicationContext context = EngineContext.on("everyday-" + UUID.randomUUID() + ":")
                .beans(Guarded.class)
                .bean(LimitOverrides.class, () -> new Overridden("guarded", new LimitOverrides.Change(2L, null, null)))
                .start()) {
            Guarded guarded = context.getBean(Guarded.class);
            assertThat(guarded.attempt("ada", false)).isEqualTo("fine");
            assertThatThrownBy(() -> guarded.attempt("ada", true)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> guarded.attempt("ada", true)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> guarded.attempt("ada", false))
                    .as("two failures: the overridden limit of 2 is reached")
                    .isInstanceOf(RateLimitExceededException.class);
        }
    }

    @Test
    void onlyFailuresCountExactlyAcrossTwoInstances() {
        String prefix = "everyday-" + UUID.randomUUID() + ":";
        try (AnnotationConfigApplicationContext one =
                        EngineContext.on(prefix).beans(Login.class).start();
                AnnotationConfigApplicationContext two =
                        EngineContext.on(prefix).beans(Login.class).start()) {
            Login a = one.getBean(Login.class);
            Login b = two.getBean(Login.class);
            for (int i = 0; i < 10; i++) {
                assertThat((i % 2 == 0 ? a : b)
                                .login("ada", "secret")
                                .getStatusCode()
                                .value())
                        .as("successes never count")
                        .isEqualTo(200);
            }
            assertThat(a.login("ada", "wrong").getStatusCode().value()).isEqualTo(401);
            assertThat(b.login("ada", "wrong").getStatusCode().value()).isEqualTo(401);
            assertThat(a.login("ada", "secret").getStatusCode().value()).isEqualTo(200);
            assertThat(b.login("ada", "wrong").getStatusCode().value()).isEqualTo(401);
            assertThatThrownBy(() -> a.login("ada", "secret"))
                    .as("three failures: refused even with the right password")
                    .isInstanceOf(RateLimitExceededException.class);
            assertThat(b.login("grace", "secret").getStatusCode().value())
                    .as("another user")
                    .isEqualTo(200);

            assertThatThrownBy(() -> a.throwing("lin", true)).isInstanceOf(IllegalArgumentException.class);
            assertThat(b.throwing("lin", false)).isEqualTo("fine");
            assertThatThrownBy(() -> b.throwing("lin", true)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> a.throwing("lin", false)).isInstanceOf(RateLimitExceededException.class);

            assertThat(a.reactive("mo", false).block()).isEqualTo("fine");
            assertThatThrownBy(() -> a.reactive("mo", true).block()).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> b.reactive("mo", true).block()).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> b.reactive("mo", false).block()).isInstanceOf(RateLimitExceededException.class);
        }
    }
}
