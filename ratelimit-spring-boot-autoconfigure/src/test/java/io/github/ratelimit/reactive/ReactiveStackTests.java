package io.github.ratelimit.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.reactive.RateLimitReactiveWebAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockNotAcquiredException;
import io.github.ratelimit.core.tokens.SingleUseTokenException;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import io.github.ratelimit.test.support.NoBlockingCalls;
import io.github.ratelimit.test.support.RateLimitFields;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * The annotations, the path rules and the HTTP answers on the reactive stack, against a real Redis: decisions are made
 * when a publisher is subscribed, a lock is held until the publisher ends and released on cancellation, and no
 * non-blocking thread ever blocks (BlockHound is installed for this test class and records every blocking call made on
 * such a thread).
 */
@ExtendWith(NoBlockingCalls.class)
class ReactiveStackTests {

    @RestController
    static class Api {

        private final AtomicInteger helloBodies = new AtomicInteger();
        private final Sinks.Empty<Void> workFinishes = Sinks.empty();
        private final Map<String, AtomicInteger> workStarts = new ConcurrentHashMap<>();

        int helloBodies() {
            return helloBodies.get();
        }

        void finishWork() {
            workFinishes.tryEmitEmpty();
        }

        /** How many calls of {@link #work} for the worker ran, each once it held the worker's lock. */
        int workStarts(String id) {
            AtomicInteger starts = workStarts.get(id);
            return starts == null ? 0 : starts.get();
        }

        @GetMapping("/hello")
        @RateLimited(limit = 2, windowMs = 60_000, key = "'everyone'")
        Mono<String> hello() {
            return Mono.fromSupplier(() -> "hello " + helloBodies.incrementAndGet());
        }

        @GetMapping("/global")
        @RateLimited(
                limit = 3,
                windowMs = 86_400_000,
                algorithm = Algorithm.FIXED_WINDOW,
                lease = 0.5,
                key = "'global'")
        Mono<String> global() {
            return Mono.just("global");
        }

        @GetMapping("/numbers")
        @RateLimited(limit = 1, windowMs = 60_000, key = "'numbers'")
        Flux<Integer> numbers() {
            return Flux.range(1, 3);
        }

        @GetMapping("/later")
        @RateLimited(limit = 1, windowMs = 60_000, key = "'later'")
        CompletionStage<String> later() {
            return CompletableFuture.completedFuture("later");
        }

        @GetMapping("/ping")
        Mono<String> ping() {
            return Mono.just("pong");
        }

        private final AtomicInteger spawned = new AtomicInteger();

        @GetMapping("/spawn")
        @SingleUse(purpose = "spawn", token = "#token")
        Mono<String> spawn(@RequestParam(required = false) String token, TokenConsumption consumption) {
            spawned.incrementAndGet();
            return Mono.just("spawned for " + consumption.metadata().get("user"));
        }

        int spawned() {
            return spawned.get();
        }

        @PostMapping("/workers/{id}")
        @Locked(name = "worker", key = "#id", leaseMs = 30_000)
        Mono<String> work(@PathVariable String id, LockHandle lock) {
            workStarts.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet(); // called once the lock is held
            return workFinishes.asMono().thenReturn("done " + id + " fence " + lock.fencingToken());
        }

        @GetMapping("/reports")
        @RateLimited(limit = 5, windowMs = 60_000, name = "reports", key = "#tenant")
        Mono<String> report(@RequestParam(required = false) String tenant) {
            return Mono.just("report for " + tenant);
        }

        @GetMapping("/waits")
        @RateLimited(limit = 1, windowMs = 400, key = "'waits'", waitMs = 5_000)
        Mono<String> waits() {
            return Mono.just("your turn");
        }

        @RateLimited(limit = 5, windowMs = 60_000, key = "'threads'")
        Mono<String> monoThread() {
            return Mono.fromSupplier(() -> Thread.currentThread().getName());
        }

        @RateLimited(limit = 5, windowMs = 60_000, key = "'threads'")
        CompletionStage<String> stageThread() {
            return CompletableFuture.completedFuture(Thread.currentThread().getName());
        }

        @Locked(name = "threads", key = "'threads'", leaseMs = 30_000)
        Mono<String> lockedThread() {
            return Mono.fromSupplier(() -> Thread.currentThread().getName());
        }

        @GetMapping("/plain")
        @RateLimited(limit = 5, windowMs = 60_000, key = "'plain'")
        String plain() {
            return "plain";
        }
    }

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    JacksonAutoConfiguration.class,
                    CodecsAutoConfiguration.class,
                    WebFluxAutoConfiguration.class,
                    HttpHandlerAutoConfiguration.class,
                    RateLimitRedissonAutoConfiguration.class,
                    RateLimitRedisAutoConfiguration.class,
                    RateLimitAutoConfiguration.class,
                    io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                    RateLimitReactiveWebAutoConfiguration.class,
                    io.github.ratelimit.autoconfigure.aop.RateLimitArgumentResolversAutoConfiguration.class,
                    io.github.ratelimit.autoconfigure.usage.RateLimitUsageAutoConfiguration.class))
            .withPropertyValues(
                    "spring.data.redis.url=" + SharedRedis.get().url(),
                    "ratelimit.redis.require-at-startup=true",
                    "ratelimit.redis.connect-timeout=20s", // the first connection on a busy machine
                    "ratelimit.redis.timeout=5s", // exactness under 32 subscriptions on a busy machine
                    "ratelimit.key-prefix=reactive-" + UUID.randomUUID() + ":",
                    "ratelimit.filter.rules[0].paths=/ping",
                    "ratelimit.filter.rules[0].key=header:X-Client",
                    "ratelimit.filter.rules[0].limits[0].limit=1",
                    "ratelimit.filter.rules[0].limits[0].window=1m")
            .withBean(Api.class);

    @Test
    void aMonoIsDecidedWhenSubscribedAndRefusedWithTheServletAnswer() {
        runner.run(context -> {
            Api api = context.getBean(Api.class);
            // calling the method decides nothing: only subscriptions count
            List<Mono<String>> unsubscribed = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                unsubscribed.add(api.hello());
            }
            assertThat(api.helloBodies()).isEqualTo(0);
            WebTestClient client =
                    WebTestClient.bindToApplicationContext(context).build();
            for (int i = 1; i <= 2; i++) {
                client.get()
                        .uri("/hello")
                        .exchange()
                        .expectStatus()
                        .isOk()
                        .expectHeader()
                        .exists("RateLimit")
                        .expectBody(String.class)
                        .isEqualTo("hello " + i);
            }
            EntityExchangeResult<String> refused = client.get()
                    .uri("/hello")
                    .exchange()
                    .expectStatus()
                    .isEqualTo(429)
                    .expectHeader()
                    .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                    .expectBody(String.class)
                    .returnResult();
            assertThat(refused.getResponseHeaders().getFirst("Retry-After")).matches("[1-9][0-9]*");
            RateLimitFields fields = RateLimitFields.parse(
                    refused.getResponseHeaders().getFirst("RateLimit-Policy"),
                    refused.getResponseHeaders().getFirst("RateLimit"));
            String name = fields.names().get(0);
            assertThat(fields.remaining(name)).isZero();
            assertThat(fields.quota(name)).isEqualTo(2);
            assertThat(fields.window(name)).isEqualTo(60);
            assertThat(refused.getResponseBody())
                    .contains("quota-exceeded")
                    .contains("\"status\":429")
                    .contains("\"instance\":\"/hello\"");
            // the method's publisher never ran for the refused call
            assertThat(api.helloBodies()).isEqualTo(2);
            // each subscription decides again
            assertThatThrownBy(() -> unsubscribed.get(0).block()).isInstanceOf(RateLimitExceededException.class);
        });
    }

    /**
     * A leased limit on an event loop: its leases are asked for without blocking a thread (BlockHound watches), its
     * third call is admitted and its fourth refused with the fields of a day's window of 3.
     */
    @Test
    void aLeasedLimitTakesItsLeasesWithoutBlockingAThread() {
        runner.run(context -> {
            WebTestClient client =
                    WebTestClient.bindToApplicationContext(context).build();
            for (int i = 0; i < 3; i++) {
                client.get().uri("/global").exchange().expectStatus().isOk();
            }
            EntityExchangeResult<String> refused = client.get()
                    .uri("/global")
                    .exchange()
                    .expectStatus()
                    .isEqualTo(429)
                    .expectBody(String.class)
                    .returnResult();
            RateLimitFields fields = RateLimitFields.parse(
                    refused.getResponseHeaders().getFirst("RateLimit-Policy"),
                    refused.getResponseHeaders().getFirst("RateLimit"));
            String name = fields.names().get(0);
            assertThat(fields.remaining(name)).isZero();
            assertThat(fields.quota(name)).isEqualTo(3);
            assertThat(fields.window(name)).isEqualTo(86_400);
        });
    }

    @Test
    void fluxAndCompletionStageMethodsAreLimitedToo() {
        runner.run(context -> {
            Api api = context.getBean(Api.class);
            assertThat(api.numbers().collectList().block()).containsExactly(1, 2, 3);
            assertThatThrownBy(() -> api.numbers().collectList().block())
                    .isInstanceOf(RateLimitExceededException.class);
            assertThat(api.later().toCompletableFuture().get(5, TimeUnit.SECONDS))
                    .isEqualTo("later");
            assertThat(api.later().toCompletableFuture())
                    .failsWithin(Duration.ofSeconds(5))
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withCauseInstanceOf(RateLimitExceededException.class);
        });
    }

    /**
     * Redis's answers complete on Redisson's I/O threads (and a timed-out call on the budget timer's): the method, and
     * what its subscriber does with the result after a step that ended in Redis (a lock released), must run elsewhere,
     * or their time delays the answers of every other call until those run out of their budget.
     */
    @Test
    void theMethodAndItsSubscriberNeverRunOnRedisThreads() {
        runner.run(context -> {
            Api api = context.getBean(Api.class);
            Duration wait = Duration.ofSeconds(5);
            for (int i = 0; i < 3; i++) {
                List<String> threads = new ArrayList<>();
                threads.addAll(List.of(api.monoThread()
                        .map(method -> method + "|" + Thread.currentThread().getName())
                        .block(wait)
                        .split("\\|")));
                threads.addAll(List.of(api.lockedThread()
                        .map(method -> method + "|" + Thread.currentThread().getName())
                        .block(wait)
                        .split("\\|")));
                threads.add(api.stageThread().toCompletableFuture().get(5, TimeUnit.SECONDS));
                assertThat(threads).hasSize(5).allSatisfy(thread -> assertThat(thread)
                        .doesNotStartWith("redisson")
                        .doesNotStartWith("ratelimit-budget-timer"));
            }
        });
    }

    /**
     * A refused subscription waits for its slot on a timer, no thread blocked (BlockHound): three at once on a limit of
     * one per 400 ms are all served, the last two one slot after another.
     */
    @Test
    void aRefusedCallWaitsForItsSlotWithoutBlockingAThread() {
        runner.run(context -> {
            WebTestClient client = WebTestClient.bindToApplicationContext(context)
                    .configureClient()
                    .responseTimeout(Duration.ofSeconds(10))
                    .build();
            long started = System.nanoTime();
            List<Integer> statuses = Flux.range(0, 3)
                    .flatMap(i -> Mono.fromCallable(() -> client.get()
                                    .uri("/waits")
                                    .exchange()
                                    .returnResult(String.class)
                                    .getStatus()
                                    .value())
                            .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic()))
                    .collectList()
                    .block(Duration.ofSeconds(20));
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(statuses).containsExactly(200, 200, 200);
            assertThat(elapsedMs).as("two waits of one slot each").isGreaterThanOrEqualTo(750);
        });
    }

    @Test
    void pathRulesAnswerLikeTheServletFilter() {
        runner.run(context -> {
            WebTestClient client =
                    WebTestClient.bindToApplicationContext(context).build();
            client.get()
                    .uri("/ping")
                    .header("X-Client", "a")
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectHeader()
                    .exists("RateLimit-Policy");
            client.get()
                    .uri("/ping")
                    .header("X-Client", "a")
                    .exchange()
                    .expectStatus()
                    .isEqualTo(429)
                    .expectHeader()
                    .exists("Retry-After")
                    .expectBody(String.class)
                    .value(body -> assertThat(body).contains("quota-exceeded"));
            // another client has its own budget; a request without the key is a 400 that never shows the key's source
            client.get()
                    .uri("/ping")
                    .header("X-Client", "b")
                    .exchange()
                    .expectStatus()
                    .isOk();
            client.get()
                    .uri("/ping")
                    .exchange()
                    .expectStatus()
                    .isBadRequest()
                    .expectBody(String.class)
                    .value(body -> assertThat(body).contains("X-Client header"));
        });
    }

    @Test
    void aTokenWorksOnceUnderConcurrentSubscriptions() {
        runner.run(context -> {
            Api api = context.getBean(Api.class);
            SingleUseTokens tokens = context.getBean(SingleUseTokens.class);
            String token = tokens.issue("spawn", Map.of("user", "ada"), Duration.ofMinutes(1))
                    .token();
            int callers = 32;
            CountDownLatch start = new CountDownLatch(1);
            List<CompletableFuture<String>> results = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                results.add(Mono.fromFuture(CompletableFuture.runAsync(() -> awaitQuietly(start)))
                        .then(api.spawn(token, null))
                        .subscribeOn(Schedulers.parallel())
                        .toFuture());
            }
            start.countDown();
            int spawned = 0;
            int alreadyUsed = 0;
            for (CompletableFuture<String> result : results) {
                try {
                    assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("spawned for ada");
                    spawned++;
                } catch (java.util.concurrent.ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(SingleUseTokenException.class);
                    alreadyUsed++;
                }
            }
            assertThat(spawned).isEqualTo(1);
            assertThat(alreadyUsed).isEqualTo(callers - 1);
            WebTestClient client =
                    WebTestClient.bindToApplicationContext(context).build();
            client.get().uri("/spawn?token=" + token).exchange().expectStatus().isEqualTo(409);
            client.get().uri("/spawn").exchange().expectStatus().isBadRequest();
        });
    }

    @Test
    void aLockIsHeldUntilThePublisherEndsAndReleasedOnCancellation() {
        runner.run(context -> {
            Api api = context.getBean(Api.class);
            WebTestClient client =
                    WebTestClient.bindToApplicationContext(context).build();
            // held while the first call's publisher runs; a second caller is refused with 409 and Retry-After
            Disposable first = api.work("7", null).subscribe();
            awaitWorkStarted(api, "7", 1); // the first call holds the lock: a probe now cannot take it
            awaitLock(api, "7", true);
            client.post()
                    .uri("/workers/7")
                    .exchange()
                    .expectStatus()
                    .isEqualTo(409)
                    .expectHeader()
                    .exists("Retry-After");
            // cancelling the first call releases the lock
            first.dispose();
            awaitLock(api, "7", false);
            // completion releases it as well: the caller sees the answer after the release
            Mono<String> third = api.work("8", null);
            CompletableFuture<String> done = third.toFuture();
            awaitWorkStarted(api, "8", 1);
            awaitLock(api, "8", true);
            api.finishWork();
            assertThat(done.get(5, TimeUnit.SECONDS)).startsWith("done 8 fence ");
            assertThat(api.work("8", null).block(Duration.ofSeconds(5))).startsWith("done 8");
        });
    }

    @Test
    void aPlainMethodOnANonBlockingThreadFailsWithAClearMessageInsteadOfBlocking() {
        runner.run(context -> {
            Api api = context.getBean(Api.class);
            assertThatThrownBy(() -> Mono.fromCallable(api::plain)
                            .subscribeOn(Schedulers.parallel())
                            .block(Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("@RateLimited method Api.plain returns String")
                    .hasMessageContaining("non-blocking thread")
                    .hasMessageContaining("return Mono, Flux or CompletionStage");
            assertThat(api.plain()).isEqualTo("plain"); // on a thread that may block, it decides as before
        });
    }

    /**
     * A customer's use of a limit is read without blocking: asked on a parallel thread (non-blocking, as an event loop
     * is), answered on Redisson's, spending nothing.
     */
    @Test
    void aCustomersUsageIsReadWithoutBlockingAThread() {
        runner.run(context -> {
            WebTestClient client =
                    WebTestClient.bindToApplicationContext(context).build();
            for (int i = 0; i < 2; i++) {
                client.get()
                        .uri("/reports?tenant=acme")
                        .exchange()
                        .expectStatus()
                        .isOk();
            }
            io.github.ratelimit.spring.usage.RateLimitUsage usage =
                    context.getBean(io.github.ratelimit.spring.usage.RateLimitUsage.class);
            for (int i = 0; i < 3; i++) {
                io.github.ratelimit.core.Usage read = Mono.defer(
                                () -> Mono.fromCompletionStage(usage.ofAsync("reports", null, "acme")))
                        .subscribeOn(Schedulers.parallel())
                        .block(Duration.ofSeconds(10));
                assertThat(read.windows().get(0).used()).isEqualTo(2);
                assertThat(read.windows().get(0).remaining()).isEqualTo(3);
            }
        });
    }

    @Test
    void aKeyThatCannotBeDeterminedIsA400ThatNeverShowsTheExpression() {
        runner.run(context -> {
            WebTestClient client =
                    WebTestClient.bindToApplicationContext(context).build();
            client.get()
                    .uri("/reports")
                    .exchange()
                    .expectStatus()
                    .isBadRequest()
                    .expectHeader()
                    .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                    .expectBody(String.class)
                    .value(body -> assertThat(body).contains("\"status\":400").doesNotContain("#tenant"));
            client.get().uri("/reports?tenant=acme").exchange().expectStatus().isOk();
        });
    }

    /**
     * Redis frozen: answers come within the budget with the failure mode's outcome (the limit decided in memory, the
     * token refused with 503), and no thread waits for them.
     */
    @Test
    void aFrozenRedisGivesTheFailPolicyWithinTheBudget() {
        try (RedisProcess redis = RedisProcess.start()) {
            runner.withPropertyValues("spring.data.redis.url=" + redis.url(), "ratelimit.redis.timeout=100ms")
                    .run(context -> {
                        WebTestClient client = WebTestClient.bindToApplicationContext(context)
                                .configureClient()
                                .responseTimeout(Duration.ofSeconds(5))
                                .build();
                        client.get().uri("/hello").exchange().expectStatus().isOk();
                        redis.freeze();
                        try {
                            long started = System.nanoTime();
                            client.get()
                                    .uri("/hello")
                                    .exchange()
                                    .expectStatus()
                                    .isOk()
                                    .expectHeader()
                                    .exists("RateLimit"); // decided in memory (failure mode local, the default)
                            client.get()
                                    .uri("/spawn?token=" + "A".repeat(32))
                                    .exchange()
                                    .expectStatus()
                                    .isEqualTo(503)
                                    .expectHeader()
                                    .exists("Retry-After");
                            assertThat(Duration.ofNanos(System.nanoTime() - started))
                                    .as("two answers, each bounded by the 100 ms budget")
                                    .isLessThan(Duration.ofSeconds(2));
                        } finally {
                            redis.thaw();
                        }
                    });
        }
    }

    /** A subscriber that leaves while its token is being consumed gets the use given back: the method never ran. */
    @Test
    void aTokenTakenForASubscriberThatLeftIsGivenBack() {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        runner.withBean(GatedTokens.class, () -> new GatedTokens(gate)).run(context -> {
            GatedTokens tokens = context.getBean(GatedTokens.class);
            tokens.delegate(new RedisSingleUseTokens(
                    context.getBean(RedissonClient.class),
                    "reactive-gated-" + UUID.randomUUID() + ":",
                    context.getBean(RedisGuard.class)));
            Api api = context.getBean(Api.class);
            String token = tokens.issue("spawn", Map.of("user", "ada"), Duration.ofMinutes(1))
                    .token();
            Disposable subscriber = api.spawn(token, null).subscribe();
            subscriber.dispose(); // gone while the consumption waits at the gate
            gate.complete(null); // now Redis consumes the use, for nobody
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!tokens.consume("spawn", token).consumed()) {
                assertThat(System.nanoTime()).as("the use given back").isLessThan(deadline);
            }
            assertThat(api.spawned()).as("the method never ran").isZero();
        });
    }

    /** Tokens whose consumptions wait at a gate, to leave while one is in flight. */
    static final class GatedTokens implements SingleUseTokens {

        private final CompletableFuture<Void> gate;
        private volatile SingleUseTokens delegate;

        GatedTokens(CompletableFuture<Void> gate) {
            this.gate = gate;
        }

        void delegate(SingleUseTokens delegate) {
            this.delegate = delegate;
        }

        @Override
        public IssuedToken issue(String purpose, Map<String, String> metadata, Duration ttl, int uses) {
            return delegate.issue(purpose, metadata, ttl, uses);
        }

        @Override
        public TokenConsumption consume(String purpose, String token) {
            return delegate.consume(purpose, token);
        }

        @Override
        public CompletionStage<TokenConsumption> consumeAsync(String purpose, String token) {
            return gate.thenCompose(open -> delegate.consumeAsync(purpose, token));
        }

        @Override
        public boolean release(String purpose, String token) {
            return delegate.release(purpose, token);
        }

        @Override
        public CompletionStage<Boolean> releaseAsync(String purpose, String token) {
            return delegate.releaseAsync(purpose, token);
        }
    }

    /**
     * Waits until {@link Api#work} for the worker has run {@code starts} times: each ran once its call held the lock, so
     * a call subscribed before holds the lock now. (Probing the lock instead could take it before that call did.)
     */
    private static void awaitWorkStarted(Api api, String id, int starts) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (api.workStarts(id) < starts) {
            assertThat(System.nanoTime())
                    .as("worker %s started %d times in time", id, starts)
                    .isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /**
     * Waits until a probe finds the worker's lock busy (refused at once), or free (the probe takes it, runs, and is
     * cancelled, which releases it again).
     */
    private static void awaitLock(Api api, String id, boolean busy) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            boolean refused = api.work(id, null)
                    .timeout(Duration.ofMillis(200), Mono.just("running"))
                    .map(result -> false)
                    .onErrorResume(LockNotAcquiredException.class, error -> Mono.just(true))
                    .block(Duration.ofSeconds(5));
            if (refused == busy) {
                return;
            }
            assertThat(System.nanoTime())
                    .as("the lock of worker %s is %s in time", id, busy ? "taken" : "released")
                    .isLessThan(deadline);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
