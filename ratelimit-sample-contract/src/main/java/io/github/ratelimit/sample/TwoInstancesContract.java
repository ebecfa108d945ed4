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

    static long digestRuns(int port) {
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
            awaitBlocks(port(two), "127.0.0.61", true);
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
            awaitBlocks(port(one), "127.0.0.61", false);
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

    static int usage(int port, Map<String, String> tenant) {
        return RawHttp.get("127.0.0.1", port, "/api/tenant-usage", tenant).status();
    }

    /**
     * Reads an instance's view of {@code tenant-usage} until its override contains the text (or, for null, until there
     * is none), for at most a second.
     */
    static void awaitOverride(int port, String text) throws InterruptedException {
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
     * Reads an instance's list of blocks until the address is (or is no longer) among them, for at most two seconds: a
     * change reaches every instance at once through pub/sub, and within a second through its periodic read.
     */
    static void awaitBlocks(int port, String address, boolean blocked) throws InterruptedException {
        long deadline = System.nanoTime() + 2_000_000_000L;
        String list;
        do {
            list = RawHttp.get("127.0.0.1", port, "/actuator/ratelimits", Map.of())
                    .body();
            if (list.contains("ip " + address) == blocked) {
                System.out.printf(
                        "block of %s %s on the other instance after %d ms%n",
                        address,
                        blocked ? "seen" : "gone",
                        (System.nanoTime() - deadline + 2_000_000_000L) / 1_000_000);
                return;
            }
            Thread.sleep(20);
        } while (System.nanoTime() - deadline < 0);
        throw new AssertionError("the block of " + address + " " + (blocked ? "not seen" : "still seen") + ": " + list);
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
            GlobalLimitLoad.Result load = GlobalLimitLoad.run(ports, 8_000, () -> leases(ports[0]) + leases(ports[1]));
            double leaseCalls = load.countedAfter() - load.countedBefore();
            System.out.printf("/api/global: %d admitted, %.0f lease script calls%n", load.admitted(), leaseCalls);
            assertThat(leaseCalls).isLessThanOrEqualTo(load.admitted() / 10.0);
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
