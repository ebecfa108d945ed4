package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.jayway.jsonpath.JsonPath;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The promises of docs/upgrading.md for a fleet in the middle of a rollout: the servlet sample of the baseline release
 * ({@code upgrade.baseline}) and this build's, side by side on one Redis, keep every promise of both, each way: what
 * one instance counts, writes or holds, the other honours. Every test uses clients and keys of its own, so the two
 * instances are started once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class MixedVersionsContract {

    private static final Pattern TOKEN = Pattern.compile("\"token\":\"([^\"]+)\"");

    /** One direction of a promise: written, counted or held on {@code from}, honoured on {@code to}. */
    record Way(String name, int from, int to) {}

    private SampleProcess baseline;
    private SampleProcess current;

    /** Starts the Redis both instances share; the arguments that point an instance at it. */
    abstract List<String> startRedis() throws Exception;

    abstract void stopRedis() throws Exception;

    @BeforeAll
    void startBoth() throws Exception {
        List<String> redis = startRedis();
        baseline = SampleProcess.start(List.of("-jar", BaselineSample.jar().toString()), redis);
        current = SampleProcess.start(List.of("-jar", BaselineSample.current().toString()), redis);
        baseline.awaitUp();
        current.awaitUp();
    }

    @AfterAll
    void stopBoth() throws Exception {
        List<String> logs = new ArrayList<>();
        try {
            for (SampleProcess instance : new SampleProcess[] {baseline, current}) {
                if (instance != null) {
                    logs.add(instance.log());
                    instance.stop();
                }
            }
        } finally {
            stopRedis();
        }
        assertThat(logs).allSatisfy(log -> assertThat(log)
                .as("no ERROR logged")
                .doesNotContainPattern("(?m)^\\S+\\s+ERROR ")
                .as("every announcement confirmed by every instance")
                .doesNotContain("instance(s) confirmed within"));
    }

    List<Way> ways() {
        return List.of(
                new Way("baseline -> current", baseline.port(), current.port()),
                new Way("current -> baseline", current.port(), baseline.port()));
    }

    int[] ports() {
        return new int[] {baseline.port(), current.port()};
    }

    // ---- limits ----

    /** {@code /api/hello}, 5 a second per client: twelve calls within a second, alternating, admit exactly five. */
    @Test
    void aLimitIsExactAcrossVersions() {
        int[] ports = ports();
        List<Integer> statuses = new ArrayList<>();
        long started = System.nanoTime();
        for (int i = 0; i < 12; i++) {
            statuses.add(RawHttp.get("127.0.2.1", ports[i % 2], "/api/hello", Map.of())
                    .status());
        }
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        assumeTrue(elapsedMs < 900, "twelve calls within one second (took " + elapsedMs + " ms)");
        System.out.printf("/api/hello over both versions: %s%n", statuses);
        assertThat(statuses.stream().filter(status -> status == 200)).hasSize(5);
    }

    /**
     * {@code /api/search}: 10 a second, 120 a minute, 240 an hour, for the IP and the user (3 × 2). One user's calls,
     * about 9 a second from twenty addresses (so that no address's own limits bind), alternate between the versions:
     * exactly 120 are admitted before the minute's limit refuses, and every later call of the minute is refused.
     */
    @Test
    void threeWindowsForTwoIdentifiersAreExactAcrossVersions() {
        int[] ports = ports();
        String user = "u-" + UUID.randomUUID();
        int admitted = 0;
        int refusedBySecond = 0;
        RawHttp.Response byMinute = null;
        long started = System.nanoTime();
        long next = started;
        for (int i = 0; byMinute == null && i < 200; i++) {
            RawHttp.Response answer = RawHttp.get(
                    "127.0.2." + (100 + i % 20), ports[i % 2], "/api/search?q=x", Map.of("X-User-Id", user));
            if (answer.status() == 200) {
                admitted++;
            } else if (answer.body().contains("search-1m-userId")) {
                byMinute = answer;
            } else {
                refusedBySecond++;
            }
            next += 110_000_000L; // the load's pace, not a wait for anything
            java.util.concurrent.locks.LockSupport.parkNanos(next - System.nanoTime());
        }
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        assumeTrue(elapsedMs < 50_000, "the calls within the minute (took " + elapsedMs + " ms)");
        System.out.printf(
                "/api/search over both versions: %d admitted, %d refused by the second's limit, then the minute's%n",
                admitted, refusedBySecond);
        assertThat(byMinute).as("a refusal by the minute's limit").isNotNull();
        assertThat(admitted).isEqualTo(120);
        for (int port : ports) {
            RawHttp.Response later = RawHttp.get("127.0.2.99", port, "/api/search?q=x", Map.of("X-User-Id", user));
            assertThat(later.status()).isEqualTo(429);
            assertThat(later.body()).contains("search-1m-userId");
        }
    }

    /** The path rule on {@code /api/public/**}, 20 a minute per client: 25 calls alternating admit exactly 20. */
    @Test
    void aPathRuleIsExactAcrossVersions() {
        int[] ports = ports();
        int admitted = 0;
        for (int i = 0; i < 25; i++) {
            admitted += RawHttp.get("127.0.2.2", ports[i % 2], "/api/public/ping", Map.of())
                                    .status()
                            == 200
                    ? 1
                    : 0;
        }
        assertThat(admitted).isEqualTo(20);
    }

    /**
     * The monthly quota (3 for an unknown key) is shared; an operator's credit of two on one version lets exactly
     * two more through the other, which had refused the key; a reset on that other version lets the first admit the
     * key's full quota again at once.
     */
    @Test
    void theMonthlyQuotaItsCreditAndItsResetHoldAcrossVersions() {
        for (Way way : ways()) {
            String key = "k-" + UUID.randomUUID();
            List<Integer> used = List.of(
                    monthly(way.from(), key), monthly(way.to(), key), monthly(way.from(), key), monthly(way.to(), key));
            assertThat(used).as(way.name()).containsExactly(200, 200, 200, 429);
            assertThat(monthly(way.from(), key)).as(way.name()).isEqualTo(429);

            String credit = "{\"key\": \"" + key + "\", \"name\": \"monthly\", \"units\": 2}";
            RawHttp.Response credited =
                    RawHttp.post("127.0.0.1", way.from(), "/api/usage/credit", RawHttp.OPERATOR, credit);
            assertThat(credited.status())
                    .as(way.name() + ": " + credited.body())
                    .isEqualTo(200);
            assertThat(List.of(monthly(way.to(), key), monthly(way.to(), key), monthly(way.to(), key)))
                    .as(way.name() + ": credited two on " + way.from() + ", used on " + way.to())
                    .containsExactly(200, 200, 429);

            RawHttp.Response reset = RawHttp.send(
                    "127.0.0.1",
                    way.to(),
                    "DELETE",
                    "/actuator/ratelimits/monthly?key=" + encode(monthlyKey(way.to())) + "&value=" + key,
                    RawHttp.OPERATOR,
                    null);
            assertThat(reset.status()).as(way.name() + ": " + reset.body()).isBetween(200, 204);
            assertThat(List.of(
                            monthly(way.from(), key),
                            monthly(way.from(), key),
                            monthly(way.from(), key),
                            monthly(way.from(), key)))
                    .as(way.name() + ": reset on " + way.to() + ", used on " + way.from())
                    .containsExactly(200, 200, 200, 429);
        }
    }

    private static int monthly(int port, String apiKey) {
        return RawHttp.get("127.0.2.3", port, "/api/monthly", Map.of("X-Api-Key", apiKey))
                .status();
    }

    /** The identifier's key the monthly limit counts, as the operator's listing names it. */
    private static String monthlyKey(int port) {
        RawHttp.Response listed = RawHttp.get("127.0.0.1", port, "/actuator/ratelimits", RawHttp.OPERATOR);
        return JsonPath.parse(listed.body())
                .<List<String>>read("$.limits[?(@.name == 'monthly')].keys[0]")
                .get(0);
    }

    // ---- an operator's writes ----

    /** A block set on one version refuses the client on the other; lifted there, the first serves it again. */
    @Test
    void aBlockAndItsLiftReachTheOtherVersion() throws Exception {
        String blocks = "/actuator/ratelimits/blocks";
        int client = 0;
        for (Way way : ways()) {
            String address = "127.0.2." + (50 + client++);
            String body = "{\"key\": \"ip\", \"value\": \"" + address + "\", \"duration\": \"30s\"}";
            assertThat(RawHttp.post("127.0.0.1", way.from(), blocks, RawHttp.OPERATOR, body)
                            .status())
                    .as(way.name())
                    .isEqualTo(204);
            TwoInstancesContract.awaitBlocks(way.to(), address, true);
            RawHttp.Response refused = RawHttp.get(address, way.to(), "/api/hello", Map.of());
            assertThat(refused.status()).as(way.name()).isEqualTo(429);

            assertThat(RawHttp.send(
                                    "127.0.0.1",
                                    way.to(),
                                    "DELETE",
                                    blocks + "?key=ip&value=" + address,
                                    RawHttp.OPERATOR,
                                    null)
                            .status())
                    .as(way.name())
                    .isEqualTo(204);
            TwoInstancesContract.awaitBlocks(way.from(), address, false);
            assertThat(RawHttp.get(address, way.from(), "/api/hello", Map.of()).status())
                    .as(way.name())
                    .isEqualTo(200);
        }
    }

    /**
     * An override of {@code tenant-usage} (3 a minute per tenant) set on one version applies on the other, with what
     * the tenant used carried over (2 used, a quota of 4: two more, then 429); removed there, the first returns to 3.
     */
    @Test
    void anOverrideAndItsRemovalReachTheOtherVersion() throws Exception {
        String override = "/actuator/ratelimits/tenant-usage/override";
        for (Way way : ways()) {
            Map<String, String> tenant = Map.of("X-Tenant-Id", "acme-" + UUID.randomUUID());
            assertThat(List.of(
                            TwoInstancesContract.usage(way.to(), tenant), TwoInstancesContract.usage(way.to(), tenant)))
                    .containsExactly(200, 200);
            assertThat(RawHttp.post("127.0.0.1", way.from(), override, RawHttp.OPERATOR, "{\"limit\": 4}")
                            .status())
                    .as(way.name())
                    .isEqualTo(204);
            TwoInstancesContract.awaitOverride(way.to(), "\"limit\":4");
            assertThat(List.of(
                            TwoInstancesContract.usage(way.to(), tenant),
                            TwoInstancesContract.usage(way.to(), tenant),
                            TwoInstancesContract.usage(way.to(), tenant)))
                    .as(way.name())
                    .containsExactly(200, 200, 429);

            assertThat(RawHttp.send("127.0.0.1", way.to(), "DELETE", override, RawHttp.OPERATOR, null)
                            .status())
                    .as(way.name())
                    .isEqualTo(204);
            TwoInstancesContract.awaitOverride(way.from(), null);
            assertThat(TwoInstancesContract.usage(way.from(), tenant))
                    .as(way.name())
                    .isEqualTo(429);
        }
    }

    // ---- tokens ----

    /**
     * Ten tokens issued on one version, each presented by ten concurrent requests spread over both versions: each
     * token is used exactly once (one 200, nine 409).
     */
    @Test
    void aTokenIssuedOnOneVersionIsUsedExactlyOnceAcrossBoth() throws Exception {
        int[] ports = ports();
        ExecutorService pool = Executors.newFixedThreadPool(10);
        try {
            for (Way way : ways()) {
                for (int t = 0; t < 10; t++) {
                    String token = issue(way.from(), "u-" + UUID.randomUUID());
                    CountDownLatch go = new CountDownLatch(1);
                    List<Future<Integer>> uses = new ArrayList<>();
                    for (int i = 0; i < 10; i++) {
                        int port = ports[i % 2];
                        uses.add(pool.submit(() -> {
                            go.await();
                            return RawHttp.get("127.0.2.4", port, "/api/spawn-vm?token=" + token, Map.of())
                                    .status();
                        }));
                    }
                    go.countDown();
                    List<Integer> statuses = new ArrayList<>();
                    for (Future<Integer> use : uses) {
                        statuses.add(use.get(20, TimeUnit.SECONDS));
                    }
                    assertThat(statuses.stream().filter(status -> status == 200))
                            .as(way.name() + ": " + statuses)
                            .hasSize(1);
                    assertThat(statuses.stream().filter(status -> status == 409))
                            .as(way.name() + ": " + statuses)
                            .hasSize(9);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static String issue(int port, String user) {
        RawHttp.Response created = RawHttp.post("127.0.2.4", port, "/api/tokens", Map.of("X-User-Id", user), null);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        Matcher matcher = TOKEN.matcher(created.body());
        assertThat(matcher.find()).as(created.body()).isTrue();
        return matcher.group(1);
    }

    // ---- locks and jobs ----

    /**
     * A worker's lock held on one version is exclusive on the other (409), listed by the other's operator endpoint and
     * freed there (204, then 404); the worker learns it no longer held it, and the other version takes the lock.
     */
    @Test
    void aLockIsExclusiveListedAndFreedAcrossVersions() throws Exception {
        for (Way way : ways()) {
            String user = "u-" + UUID.randomUUID();
            CompletableFuture<RawHttp.Response> worker = CompletableFuture.supplyAsync(() ->
                    RawHttp.post("127.0.2.5", way.from(), "/api/workers/" + user + "?durationMs=5000", Map.of(), null));
            String one = "/actuator/ratelimits/locks/worker?key=" + user;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!held(way.to(), one)) {
                assertThat(System.nanoTime())
                        .as(way.name() + ": the lock listed as held")
                        .isLessThan(deadline);
                Thread.sleep(20);
            }
            RawHttp.Response listed =
                    RawHttp.get("127.0.0.1", way.to(), "/actuator/ratelimits/locks", RawHttp.OPERATOR);
            assertThat(JsonPath.parse(listed.body()).<List<Object>>read("$.locks[?(@.key == '" + user + "')]"))
                    .as(way.name() + ": in the listing")
                    .hasSize(1);
            RawHttp.Response busy =
                    RawHttp.post("127.0.2.5", way.to(), "/api/workers/" + user + "?durationMs=0", Map.of(), null);
            assertThat(busy.status()).as(way.name() + ": exclusive").isEqualTo(409);

            assertThat(RawHttp.send("127.0.0.1", way.to(), "DELETE", one, RawHttp.OPERATOR, null)
                            .status())
                    .as(way.name() + ": freed by the other version's operator")
                    .isEqualTo(204);
            assertThat(RawHttp.send("127.0.0.1", way.to(), "DELETE", one, RawHttp.OPERATOR, null)
                            .status())
                    .isEqualTo(404);
            RawHttp.Response done = worker.get(20, TimeUnit.SECONDS);
            assertThat(done.status()).isEqualTo(200);
            assertThat(done.body()).as(way.name()).contains("\"stillHeld\":false");
            assertThat(RawHttp.post("127.0.2.5", way.to(), "/api/workers/" + user + "?durationMs=0", Map.of(), null)
                            .status())
                    .as(way.name() + ": taken by the other version once freed")
                    .isEqualTo(200);
        }
    }

    private static boolean held(int port, String path) {
        RawHttp.Response one = RawHttp.get("127.0.0.1", port, path, RawHttp.OPERATOR);
        return one.status() == 200 && JsonPath.parse(one.body()).read("$.held", Boolean.class);
    }

    /** The {@code digest} job, every second on both versions, runs about once a second in all, not twice. */
    @Test
    void aScheduledJobRunsOncePerTickAcrossVersions() throws Exception {
        int[] ports = ports();
        long before = TwoInstancesContract.digestRuns(ports[0]);
        long started = System.nanoTime();
        Thread.sleep(6_000); // the window the runs are counted over
        long runs = TwoInstancesContract.digestRuns(ports[1]) - before;
        long seconds = Math.round((System.nanoTime() - started) / 1e9);
        System.out.printf("digest on both versions: %d runs in %d s%n", runs, seconds);
        assertThat(runs).isBetween(seconds - 2, seconds + 1);
    }

    /** {@code /api/global}, 50 a second for all callers, leased: within its bound with both versions taking leases. */
    @Test
    void aLeasedLimitStaysWithinItsBoundAcrossVersions() throws Exception {
        GlobalLimitLoad.Result load = GlobalLimitLoad.run(ports(), 6_000, () -> 0);
        System.out.printf("/api/global over both versions: %d admitted in 6 s%n", load.admitted());
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
