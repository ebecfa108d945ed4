package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.ratelimit.test.support.RedisProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two instances of a sample app given one spring.data.redis.url share their limits: run for the servlet sample here and
 * for the reactive one in its module.
 */
abstract class TwoInstancesContract {

    /** The application class to start twice. */
    abstract Class<?> application();

    @Test
    void limitsHoldAcrossInstancesSharingOneRedis() {
        try (RedisProcess redis = RedisProcess.start();
                ConfigurableApplicationContext one = start(redis.port());
                ConfigurableApplicationContext two = start(redis.port())) {
            int[] ports = {port(one), port(two)};
            List<Integer> statuses = new ArrayList<>();
            long started = System.nanoTime();
            for (int i = 0; i < 6; i++) {
                statuses.add(RawHttp.get("127.0.0.31", ports[i % 2], "/api/hello", Map.of())
                        .status());
            }
            long elapsedMs = (System.nanoTime() - started) / 1_000_000;
            assumeTrue(elapsedMs < 900, "six calls within one second (took " + elapsedMs + " ms)");

            assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429);
        }
    }

    /**
     * The {@code digest} job (every second, {@code minHoldMs = 900}) on two instances started half a second apart runs
     * about once a second across both, not twice: its runs over six seconds, counted in Redis, are at most seven.
     */
    @Test
    void theDigestJobRunsOnceASecondAcrossTwoInstances() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                ConfigurableApplicationContext one = start(redis.port())) {
            Thread.sleep(500); // the second instance's schedule starts half a second after the first's
            try (ConfigurableApplicationContext two = start(redis.port())) {
                long before = digestRuns(port(one));
                long started = System.nanoTime();
                Thread.sleep(6_000); // the window the runs are counted over
                long runs = digestRuns(port(two)) - before;
                long seconds = Math.round((System.nanoTime() - started) / 1e9);
                System.out.printf("digest on two instances: %d runs in %d s%n", runs, seconds);
                assertThat(runs).isBetween(seconds - 2, seconds + 1);
            }
        }
    }

    private static long digestRuns(int port) {
        RawHttp.Response answer = RawHttp.get("127.0.0.1", port, "/api/jobs/digest", Map.of());
        assertThat(answer.status()).isEqualTo(200);
        return com.jayway.jsonpath.JsonPath.parse(answer.body()).read("$.runs", Long.class);
    }

    /**
     * {@code GET /api/wait} admits five per second per client and lets a refused call wait up to five seconds: twenty
     * calls at once from one client over both instances all succeed, the last after about three seconds.
     */
    @Test
    void waitingCallsOverBothInstancesAreAllServedSpreadOverSeconds() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                ConfigurableApplicationContext one = start(redis.port());
                ConfigurableApplicationContext two = start(redis.port())) {
            Burst burst = Burst.send("127.0.0.32", List.of(port(one), port(two)), "/api/wait", 20);

            assertThat(burst.statuses())
                    .as("answers in %d ms", burst.elapsedMs())
                    .containsOnly(200);
            List<Long> millis =
                    burst.answers().stream().map(Burst.Answer::millis).sorted().toList();
            // five at once, the fifteen others one slot (200 ms) apart from the second on: the last near 3.8 s
            // the first five are answered before the first slot (1 s after them) could have come, however slow the
            // machine
            assertThat(millis.get(4)).as("the first five, in %s", millis).isLessThan(millis.get(5) - 500);
            assertThat(millis.get(19)).as("the last, in %s", millis).isBetween(3_000L, 5_000L);
        }
    }

    /**
     * {@code POST /api/complete} charges each user 100 tokens per word after the call, of 1,000 per minute: 3-word
     * prompts, alternating between the instances, get four answers (the fourth takes the budget past zero), then 429;
     * another user is not affected.
     */
    @Test
    void costsKnownAfterTheCallAreChargedAcrossInstances() {
        try (RedisProcess redis = RedisProcess.start();
                ConfigurableApplicationContext one = start(redis.port());
                ConfigurableApplicationContext two = start(redis.port())) {
            int[] ports = {port(one), port(two)};
            List<Integer> statuses = new ArrayList<>();
            List<String> bodies = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                RawHttp.Response answer = RawHttp.post(
                        "127.0.0.33",
                        ports[i % 2],
                        "/api/complete",
                        Map.of("X-User-Id", "ada"),
                        "{\"prompt\": \"tell me more\"}");
                statuses.add(answer.status());
                bodies.add(answer.body());
            }
            assertThat(statuses).as("bodies %s", bodies).containsExactly(200, 200, 200, 200, 429, 429);
            assertThat(bodies.get(0)).contains("\"tokens\":300");
            assertThat(RawHttp.post(
                                    "127.0.0.33",
                                    ports[0],
                                    "/api/complete",
                                    Map.of("X-User-Id", "grace"),
                                    "{\"prompt\": \"hello\"}")
                            .status())
                    .isEqualTo(200);
        }
    }

    /**
     * {@code GET /api/weather} calls the stub (4 per second for everyone) under an outbound rule of 2 per second shared
     * by both instances, waiting for a slot: eight calls at once over both instances all get the stub's answer (never
     * the 502 of a refusal by the stub), the last after at least three seconds. (The stub's margin takes the time a call
     * spends between its slot and the stub: with 3 per second, two calls admitted at 0 s that reached the stub late
     * and two admitted at 1 s that reached it at once met in one of its seconds on a loaded machine.)
     */
    @Test
    void outboundCallsShareOneBudgetAcrossInstances() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                ConfigurableApplicationContext one = start(redis.port());
                ConfigurableApplicationContext two = start(redis.port())) {
            Burst burst = Burst.send("127.0.0.34", List.of(port(one), port(two)), "/api/weather", 8);

            assertThat(burst.statuses())
                    .as("answers in %d ms", burst.elapsedMs())
                    .containsOnly(200);
            long last = burst.answers().stream()
                    .mapToLong(Burst.Answer::millis)
                    .max()
                    .orElseThrow();
            // 2 per second: the 7th and 8th calls go in the fourth second
            assertThat(last).isGreaterThanOrEqualTo(2_900);
        }
    }

    /**
     * An operator blocks 127.0.0.61 through one instance's endpoint: the other lists the block and refuses its calls
     * with 429 and Retry-After the time left (another client is served); lifted through the other instance, the first
     * serves it again. Bad input is a 400 naming what was wrong, and stores nothing.
     */
    @Test
    void anOperatorBlocksAClientOnEveryInstanceAndLiftsIt() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                ConfigurableApplicationContext one = start(redis.port());
                ConfigurableApplicationContext two = start(redis.port())) {
            String blocks = "/actuator/ratelimits/blocks";
            for (String bad : List.of(
                    "{\"value\": \"127.0.0.61\", \"duration\": \"30s\"}",
                    "{\"key\": \"ip\", \"value\": \"127.0.0.61\", \"duration\": \"abc\"}",
                    "{\"key\": \"ip\", \"value\": \"127.0.0.61\", \"duration\": \"2d\"}")) {
                RawHttp.Response refused = RawHttp.post("127.0.0.1", port(one), blocks, RawHttp.OPERATOR, bad);
                assertThat(refused.status()).as(bad).isEqualTo(400);
                assertThat(refused.body()).as(bad).contains("error");
            }
            assertThat(RawHttp.get("127.0.0.61", port(two), "/api/hello", Map.of())
                            .status())
                    .isEqualTo(200);

            RawHttp.Response blocked = RawHttp.post(
                    "127.0.0.1",
                    port(one),
                    blocks,
                    RawHttp.OPERATOR,
                    "{\"key\": \"ip\", \"value\": \"127.0.0.61\", \"duration\": \"30s\"}");
            assertThat(blocked.status()).isEqualTo(204);
            awaitBlocks(port(two), true);
            RawHttp.Response refused = RawHttp.get("127.0.0.61", port(two), "/api/hello", Map.of());
            assertThat(refused.status()).isEqualTo(429);
            assertThat(Long.parseLong(refused.header("Retry-After"))).isBetween(25L, 30L);
            assertThat(RawHttp.get("127.0.0.62", port(two), "/api/hello", Map.of())
                            .status())
                    .isEqualTo(200);

            assertThat(RawHttp.send(
                                    "127.0.0.1",
                                    port(two),
                                    "DELETE",
                                    blocks + "?key=ip&value=127.0.0.61",
                                    RawHttp.OPERATOR,
                                    null)
                            .status())
                    .isEqualTo(204);
            awaitBlocks(port(one), false);
            assertThat(RawHttp.get("127.0.0.61", port(one), "/api/hello", Map.of())
                            .status())
                    .isEqualTo(200);
        }
    }

    /**
     * An operator overrides {@code tenant-usage} (3 per minute per tenant) through one instance: the other applies it
     * within a second, and what the tenant used carries over (2 used, a quota of 4: two more, then 429); shadow mode
     * on lets every call through; removing the override returns to the declared 3 (the tenant, at 4 used, is refused).
     * Bad input is a 400 naming what was wrong, and stores nothing.
     */
    @Test
    void anOperatorOverridesALimitOnEveryInstanceAndCountsCarryOver() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                ConfigurableApplicationContext one = start(redis.port());
                ConfigurableApplicationContext two = start(redis.port())) {
            String override = "/actuator/ratelimits/tenant-usage/override";
            assertThat(RawHttp.post(
                                    "127.0.0.1",
                                    port(one),
                                    "/actuator/ratelimits/nope/override",
                                    RawHttp.OPERATOR,
                                    "{\"limit\": 2}")
                            .status())
                    .isEqualTo(400);
            for (String bad : List.of("{\"limit\": 0}", "{\"window\": \"abc\"}", "{}")) {
                RawHttp.Response refused = RawHttp.post("127.0.0.1", port(one), override, RawHttp.OPERATOR, bad);
                assertThat(refused.status()).as(bad).isEqualTo(400);
                assertThat(refused.body()).as(bad).contains("error");
            }
            Map<String, String> tenant = Map.of("X-Tenant-Id", "acme-" + System.nanoTime());
            assertThat(usage(port(two), tenant)).isEqualTo(200);
            assertThat(usage(port(two), tenant)).isEqualTo(200);

            assertThat(RawHttp.post("127.0.0.1", port(one), override, RawHttp.OPERATOR, "{\"limit\": 4}")
                            .status())
                    .isEqualTo(204);
            awaitOverride(port(two), "\"limit\":4");
            assertThat(List.of(usage(port(two), tenant), usage(port(two), tenant), usage(port(two), tenant)))
                    .containsExactly(200, 200, 429);

            assertThat(RawHttp.post("127.0.0.1", port(two), override, RawHttp.OPERATOR, "{\"shadow\": true}")
                            .status())
                    .isEqualTo(204);
            awaitOverride(port(one), "\"shadow\":true");
            assertThat(List.of(usage(port(one), tenant), usage(port(one), tenant)))
                    .containsExactly(200, 200);

            assertThat(RawHttp.send("127.0.0.1", port(one), "DELETE", override, RawHttp.OPERATOR, null)
                            .status())
                    .isEqualTo(204);
            awaitOverride(port(two), null);
            assertThat(usage(port(two), tenant)).isEqualTo(429);
        }
    }

    private static int usage(int port, Map<String, String> tenant) {
        return RawHttp.get("127.0.0.1", port, "/api/tenant-usage", tenant).status();
    }

    /**
     * Reads an instance's view of {@code tenant-usage} until its override contains the text (or, for null, until there
     * is none), for at most a second.
     */
    private static void awaitOverride(int port, String text) throws InterruptedException {
        long deadline = System.nanoTime() + 1_000_000_000L;
        String view;
        do {
            view = RawHttp.get("127.0.0.1", port, "/actuator/ratelimits/tenant-usage", Map.of())
                    .body();
            int at = view.indexOf("\"override\"");
            boolean seen = text == null ? at < 0 : at >= 0 && view.indexOf(text, at) > at;
            if (seen) {
                return;
            }
            Thread.sleep(20);
        } while (System.nanoTime() - deadline < 0);
        throw new AssertionError("the override " + text + " not seen within a second: " + view);
    }

    /**
     * Reads an instance's list of blocks until 127.0.0.61 is (or is no longer) among them, for at most two seconds: a
     * change reaches every instance at once through pub/sub, and within a second through its periodic read.
     */
    private static void awaitBlocks(int port, boolean blocked) throws InterruptedException {
        long deadline = System.nanoTime() + 2_000_000_000L;
        String list;
        do {
            list = RawHttp.get("127.0.0.1", port, "/actuator/ratelimits", Map.of())
                    .body();
            if (list.contains("ip 127.0.0.61") == blocked) {
                System.out.printf(
                        "block of 127.0.0.61 %s on the other instance after %d ms%n",
                        blocked ? "seen" : "gone", (System.nanoTime() - deadline + 2_000_000_000L) / 1_000_000);
                return;
            }
            Thread.sleep(20);
        } while (System.nanoTime() - deadline < 0);
        throw new AssertionError("the block of 127.0.0.61 " + (blocked ? "not seen" : "still seen") + ": " + list);
    }

    /**
     * {@code GET /api/global}: 50 a second for every caller together, leased. Eight clients (distinct addresses) call
     * both instances about 100 times a second in all for eight seconds. Each request is decided between its start and
     * the end of its answer, and Redis shares this machine's clock, so the requests that started and ended within one
     * second were decided in it: those admitted number at most 50 (exactly the limit, whatever the machine's speed); a
     * second in which a request was refused admitted at least 40 of the requests that may have been decided in it; and
     * the instances' lease script calls ({@code ratelimit.leases}, outcome taken) number at most one per ten admitted
     * requests.
     */
    @Test
    void aLeasedGlobalLimitHoldsAcrossInstancesWithFewScriptCalls() throws Exception {
        try (RedisProcess redis = RedisProcess.start();
                ConfigurableApplicationContext one = start(redis.port());
                ConfigurableApplicationContext two = start(redis.port())) {
            int[] ports = {port(one), port(two)};
            long warmUntil = (System.currentTimeMillis() / 1000 + 2) * 1000;
            long until = warmUntil + 8_000;
            record Answered(long startMs, long endMs, int status) {}
            java.util.concurrent.ConcurrentLinkedQueue<Answered> answered =
                    new java.util.concurrent.ConcurrentLinkedQueue<>();
            List<Thread> clients = new ArrayList<>();
            java.util.concurrent.ConcurrentLinkedQueue<Throwable> failures =
                    new java.util.concurrent.ConcurrentLinkedQueue<>();
            for (int c = 0; c < 8; c++) {
                String address = "127.0.0." + (60 + c);
                int first = c;
                Thread client = new Thread(() -> {
                    try {
                        int n = first;
                        long next = System.nanoTime();
                        long now;
                        while ((now = System.currentTimeMillis()) < until) {
                            int status = RawHttp.get(address, ports[n++ % 2], "/api/global", Map.of())
                                    .status();
                            if (now >= warmUntil) {
                                answered.add(new Answered(now, System.currentTimeMillis(), status));
                            }
                            assertThat(status).isIn(200, 429);
                            // the load's pace (about 12 a second per client), not a wait for anything
                            next += 80_000_000L;
                            long ahead = next - System.nanoTime();
                            if (ahead > 0) {
                                java.util.concurrent.locks.LockSupport.parkNanos(ahead);
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                clients.add(client);
                client.start();
            }
            // the lease calls are counted from the end of the warm-up (two seconds of calls not counted)
            long warm = warmUntil - System.currentTimeMillis();
            if (warm > 0) {
                Thread.sleep(warm);
            }
            double leasesBefore = leases(ports[0]) + leases(ports[1]);
            for (Thread client : clients) {
                client.join();
            }
            assertThat(failures).isEmpty();
            double leaseCalls = leases(ports[0]) + leases(ports[1]) - leasesBefore;
            int admitted = 0;
            int refusing = 0;
            for (long second = warmUntil / 1000; second < until / 1000; second++) {
                long from = second * 1000;
                long to = from + 1000;
                int within = 0; // admitted, and decided in this second for sure
                int maybe = 0; // admitted, and maybe decided in this second
                boolean refused = false; // a request refused in this second for sure
                for (Answered answer : answered) {
                    boolean surely = answer.startMs() >= from && answer.endMs() < to;
                    boolean maybeHere = answer.startMs() < to && answer.endMs() >= from;
                    if (answer.status() == 200) {
                        within += surely ? 1 : 0;
                        maybe += maybeHere ? 1 : 0;
                        admitted += answer.startMs() >= from && answer.startMs() < to ? 1 : 0;
                    } else {
                        refused |= surely;
                    }
                }
                System.out.printf(
                        "/api/global second %d: %d admitted for sure, %d maybe, %s%n",
                        second, within, maybe, refused ? "refusing" : "none refused for sure");
                assertThat(within).as("admitted in second %d", second).isLessThanOrEqualTo(50);
                if (refused) {
                    refusing++;
                    assertThat(maybe)
                            .as("admitted, maybe in second %d, which refused", second)
                            .isGreaterThanOrEqualTo(40);
                }
            }
            System.out.printf("/api/global: %d admitted, %.0f lease script calls%n", admitted, leaseCalls);
            assertThat(refusing).as("seconds that refused calls").isGreaterThanOrEqualTo(3);
            assertThat(leaseCalls).isLessThanOrEqualTo(admitted / 10.0);
        }
    }

    /** The lease script calls an instance made so far ({@code ratelimit.leases}, outcome taken). */
    private static double leases(int port) {
        RawHttp.Response answer =
                RawHttp.get("127.0.0.1", port, "/actuator/metrics/ratelimit.leases?tag=outcome:taken", Map.of());
        if (answer.status() == 404) {
            return 0; // no lease yet
        }
        assertThat(answer.status()).isEqualTo(200);
        return com.jayway.jsonpath.JsonPath.parse(answer.body()).read("$.measurements[0].value", Double.class);
    }

    private ConfigurableApplicationContext start(int redisPort) {
        return new SpringApplicationBuilder(application())
                .run("--server.port=0", "--spring.data.redis.url=redis://127.0.0.1:" + redisPort);
    }

    private static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }
}
