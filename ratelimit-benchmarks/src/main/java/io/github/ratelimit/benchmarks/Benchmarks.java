package io.github.ratelimit.benchmarks;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.bucket4j.redis.lettuce.cas.LettuceBasedProxyManager;
import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.autoconfigure.observation.RateLimitObservationAutoConfiguration;
import io.github.ratelimit.core.CalendarPeriod;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.locks.LockManager.LockOptions;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.redisson.Redisson;
import org.redisson.api.RAtomicLong;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RScript;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import redis.embedded.RedisServer;

/**
 * Runs every workload against a local redis-server started here, side by side in one run: our algorithms, a
 * multi-limit decision, locks and tokens, Redisson's RRateLimiter, Bucket4j on Lettuce, and the floor (one INCR
 * through the same Redisson client). Prints decisions per second (median over several windows), p50/p99
 * latency, ratios, Redis memory per key and Redis commands per decision.
 *
 * <p>Workloads of one key space and concurrency are measured in rounds, one window of each per round, after a
 * first round that only warms up. Options: {@code --windows=N} (rounds measured, default 5),
 * {@code --window-ms=N} (1000), {@code --warmup-ms=N} (before each window, 300),
 * {@code --concurrency=1,8,64}, {@code --keys=hot,10k} (also {@code refused}, {@code async}, {@code observed}, {@code durable}), {@code --only=<parts of workload names, comma-separated>} (plus the
 * floor), {@code --pool=N} (Redisson connections, default 64), {@code --memory-only}; {@code --script-profile} where Redis's time goes inside the script for 3 windows x 2 ids; {@code --script-compare=<dir>} another version's scripts against this jar's, interleaved; {@code --metering} what the metrics listener adds to a decision (no Redis); {@code --lifecycle} what one call's lifecycle object adds to a decision (no Redis); {@code --leased} one global limit over several instances, leased against exact ({@link LeasedLimits}); {@code --adaptive} the fleet's adaptive concurrency limit against Gradient2 on each node and static limits ({@link AdaptiveFleet}); {@code --outbound} measures what an
 * outbound rule adds to an HTTP call instead ({@link OutboundLatency}).
 */
public final class Benchmarks {

    static final long LIMIT = 1_000_000;
    static final Duration WINDOW = Duration.ofMinutes(1);
    static final int MANY_KEYS = 10_000;

    private final int windows;
    private final long windowMs;
    private final long warmupMs;
    private final int[] concurrencies;
    private final boolean throughput;
    private final String only;
    private final String keyspaces;
    private final RedissonClient redisson;
    private final RedisClient lettuce;
    private final StatefulRedisConnection<String, byte[]> lettuceConnection;
    private final RedisNode node;

    private Benchmarks(Map<String, String> options, String url) {
        this.windows = Integer.parseInt(options.getOrDefault("windows", "5"));
        this.windowMs = Long.parseLong(options.getOrDefault("window-ms", "1000"));
        this.warmupMs = Long.parseLong(options.getOrDefault("warmup-ms", "300"));
        this.concurrencies = Arrays.stream(
                        options.getOrDefault("concurrency", "1,8,64").split(","))
                .mapToInt(Integer::parseInt)
                .toArray();
        this.throughput = !options.containsKey("memory-only");
        Config config = new Config();
        int pool = Integer.parseInt(options.getOrDefault("pool", "64"));
        this.only = options.get("only");
        this.keyspaces = options.getOrDefault("keys", "hot,10k");
        config.useSingleServer()
                .setAddress(url)
                .setConnectionMinimumIdleSize(pool)
                .setConnectionPoolSize(pool);
        this.redisson = Redisson.create(config);
        this.node = redisson.getRedisNodes(RedisNodes.SINGLE).getInstance();
        this.lettuce = RedisClient.create(url);
        this.lettuceConnection = lettuce.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
    }

    /** A benchmark that runs alone on the Redis the run started. */
    @FunctionalInterface
    interface OnRedis {
        void run(String redisUrl, Map<String, String> options) throws Exception;
    }

    /** A whole-number option, or its default. */
    private static int number(Map<String, String> options, String name, int otherwise) {
        return Integer.parseInt(options.getOrDefault(name, Integer.toString(otherwise)));
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        for (String arg : args) {
            String[] pair = arg.replaceFirst("^--", "").split("=", 2);
            options.put(pair[0], pair.length > 1 ? pair[1] : "true");
        }
        if (options.containsKey("lifecycle")) {
            LifecycleCost.run(
                    Integer.parseInt(options.getOrDefault("rounds", "7")),
                    Integer.parseInt(options.getOrDefault("calls", "2000000")));
            return;
        }
        if (options.containsKey("metering")) {
            MeteringCost.run(
                    Integer.parseInt(options.getOrDefault("rounds", "7")),
                    Integer.parseInt(options.getOrDefault("calls", "2000000")));
            return;
        }
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        RedisServer server = RedisServer.newRedisServer()
                .port(port)
                .setting("bind 127.0.0.1")
                .setting("save \"\"")
                .setting("appendonly no")
                .build();
        server.start();
        // the benchmarks of one integration each, on this Redis: the first option named runs, alone
        Map<String, OnRedis> alone = new LinkedHashMap<>();
        alone.put("outbound", (url, o) -> OutboundLatency.run(url, number(o, "rounds", 5), number(o, "calls", 2000)));
        alone.put("kafka", (url, o) -> KafkaThroughput.run(url, number(o, "rounds", 5), number(o, "records", 5000)));
        alone.put("grpc", (url, o) -> GrpcLatency.run(url, number(o, "rounds", 5), number(o, "calls", 2000)));
        alone.put("leased", LeasedLimits::run);
        alone.put("adaptive", AdaptiveFleet::run);
        for (Map.Entry<String, OnRedis> benchmark : alone.entrySet()) {
            if (options.containsKey(benchmark.getKey())) {
                try {
                    benchmark.getValue().run("redis://127.0.0.1:" + port, options);
                } finally {
                    server.stop();
                }
                return;
            }
        }
        System.out.println("scripts measured: " + scriptDigests());
        if (options.containsKey("script-profile")) {
            try {
                ScriptProfile.run("redis://127.0.0.1:" + port);
            } finally {
                server.stop();
            }
            return;
        }
        if (options.containsKey("script-compare")) {
            try {
                ScriptProfile.compare(
                        "redis://127.0.0.1:" + port, java.nio.file.Path.of(options.get("script-compare")));
            } finally {
                server.stop();
            }
            return;
        }
        try {
            Benchmarks benchmarks = new Benchmarks(options, "redis://127.0.0.1:" + port);
            try {
                benchmarks.run();
            } finally {
                benchmarks.close();
            }
        } finally {
            server.stop();
        }
    }

    /**
     * The SHA-1 of each rate-limit script this jar runs (the first 12 hex digits), printed first so that a run's output
     * says which scripts it measured: a benchmark jar packaged with an older starter would otherwise not show it.
     */
    static String scriptDigests() throws Exception {
        List<String> digests = new ArrayList<>();
        digests.add("decide/*.lua (3 windows x 2 ids) "
                + HexFormat.of()
                        .formatHex(
                                MessageDigest.getInstance("SHA-1")
                                        .digest(ScriptProfile.decisionScript("w3.w3")
                                                .getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                                0,
                                6));
        for (String name : List.of("ring.lua", "decide/after.lua")) {
            try (InputStream in = RedisRateLimiter.class.getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalStateException("No script " + name + " next to " + RedisRateLimiter.class);
                }
                byte[] sha = MessageDigest.getInstance("SHA-1").digest(in.readAllBytes());
                digests.add(name + " " + HexFormat.of().formatHex(sha, 0, 6));
            }
        }
        return String.join(", ", digests);
    }

    /**
     * One workload: a blocking operation per key, run by one thread per caller; or, when {@code asyncForKey} is set,
     * a non-blocking one, run as that many chains of calls in flight (each chain sends its next call when the last
     * one completes, on whatever thread completed it), as a reactive application would.
     */
    static final String BUCKET4J_2X3 = "bucket4j 2 buckets x 3 bandwidths";

    record Workload(
            String name,
            IntFunction<Runnable> operationForKey,
            boolean hotKey,
            IntFunction<Supplier<CompletionStage<?>>> asyncForKey) {

        Workload(String name, IntFunction<Runnable> operationForKey, boolean hotKey) {
            this(name, operationForKey, hotKey, null);
        }

        static Workload async(String name, IntFunction<Supplier<CompletionStage<?>>> asyncForKey, boolean hotKey) {
            return new Workload(name, null, hotKey, asyncForKey);
        }
    }

    record Result(
            String workload,
            int keys,
            int concurrency,
            double opsPerSecond,
            double p50Micros,
            double p99Micros,
            double clientCpuMicros,
            double redisCpuMicros) {}

    private void run() throws Exception {
        RedisGuard guard = new RedisGuard(Duration.ofSeconds(5), 1_000, Duration.ofMillis(1));
        RedisRateLimiter ours = new RedisRateLimiter(redisson, "bench:", guard);
        // as before local refusals: every call asks Redis
        RedisRateLimiter oursRedisOnly =
                new RedisRateLimiter(redisson, "bench:", guard, RedisRateLimiter.DEFAULT_HORIZON_WINDOWS, 0);
        RedisLockManager locks = new RedisLockManager(redisson, "bench:", guard);
        RedisSingleUseTokens tokens = new RedisSingleUseTokens(redisson, "bench:", guard);
        LettuceBasedProxyManager<String> bucket4j = Bucket4jLettuce.casBasedBuilder(lettuceConnection)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(WINDOW))
                .build();
        BucketConfiguration bucketConfiguration = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(LIMIT).refillGreedy(LIMIT, WINDOW))
                .build();

        Map<String, List<Result>> results = new LinkedHashMap<>();
        for (boolean hot : throughput ? new boolean[] {true, false} : new boolean[0]) {
            int keys = hot ? 1 : MANY_KEYS;
            String space = hot ? "hot" : "10k";
            if (!List.of(keyspaces.split(",")).contains(space)) {
                continue;
            }
            List<Workload> workloads = new ArrayList<>();
            workloads.add(floor(space, keys));
            workloads.add(scriptFloor(space, keys));
            workloads.add(commandsFloor(space, keys));
            workloads.add(decisionScriptFloor(space, keys));
            for (Algorithm algorithm : Algorithm.values()) {
                RateLimit limit = RateLimit.of("b-" + space, algorithm, LIMIT, WINDOW.toMillis());
                List<List<LimitRequest>> requests = prepare(keys, i -> List.of(LimitRequest.of(limit, "user-" + i, 1)));
                workloads.add(new Workload(
                        "ours " + algorithm.name().toLowerCase(Locale.ROOT),
                        i -> () -> ours.tryAcquire(requests.get(i)),
                        hot));
            }
            // the limits API products sell: one sliding window with a penalty (a PTTL more per decision), with a
            // share of a budget (a ceiling below the ring's capacity), and a quota per calendar month (a fixed count)
            Map<String, RateLimit> options = new LinkedHashMap<>();
            options.put(
                    "ours sliding_window penalty",
                    RateLimit.of("p-" + space, Algorithm.SLIDING_WINDOW, LIMIT, WINDOW.toMillis())
                            .withPenalty(Duration.ofMinutes(1)));
            options.put(
                    "ours sliding_window share 0.8",
                    RateLimit.of("s-" + space, Algorithm.SLIDING_WINDOW, LIMIT, WINDOW.toMillis())
                            .withShare(0.8));
            options.put(
                    "ours calendar month",
                    RateLimit.of("c-" + space, Algorithm.FIXED_WINDOW, LIMIT, 1)
                            .inCalendar(CalendarPeriod.of(CalendarPeriod.Unit.MONTH)));
            options.forEach((name, limit) -> {
                List<List<LimitRequest>> requests = prepare(keys, i -> List.of(LimitRequest.of(limit, "user-" + i, 1)));
                workloads.add(new Workload(name, i -> () -> ours.tryAcquire(requests.get(i)), hot));
            });
            List<RateLimit> three = List.of(
                    RateLimit.of("m1-" + space, Algorithm.SLIDING_WINDOW, LIMIT, 1_000),
                    RateLimit.of("m2-" + space, Algorithm.SLIDING_WINDOW, LIMIT, 60_000),
                    RateLimit.of("m3-" + space, Algorithm.SLIDING_WINDOW, LIMIT, 3_600_000));
            List<List<LimitRequest>> multi = prepare(keys, i -> {
                List<LimitRequest> list = new ArrayList<>();
                for (RateLimit limit : three) {
                    list.add(LimitRequest.of(limit, "ip-" + i, 1));
                    list.add(LimitRequest.of(limit, "user-" + i, 1));
                }
                return list;
            });
            workloads.add(new Workload("ours 3 limits x 2 ids", i -> () -> ours.tryAcquire(multi.get(i)), hot));
            // the seed's shape as an application asks for it: three windows of one name per identifier, which are
            // counted in one key per identifier (the line above, three names, keeps a key per window: as before)
            List<List<LimitRequest>> seed = prepare(keys, i -> {
                List<LimitRequest> list = new ArrayList<>();
                for (long windowMs : new long[] {1_000, 60_000, 3_600_000}) {
                    RateLimit limit = RateLimit.of("seed-" + space, Algorithm.SLIDING_WINDOW, LIMIT, windowMs);
                    list.add(LimitRequest.of(limit, "ip-" + i, 1));
                    list.add(LimitRequest.of(limit, "user-" + i, 1));
                }
                return list;
            });
            workloads.add(new Workload("ours 3 windows x 2 ids", i -> () -> ours.tryAcquire(seed.get(i)), hot));
            workloads.add(redissonRateLimiter(space, keys, hot));
            List<BucketProxy> buckets =
                    prepare(keys, i -> bucket4j.getProxy("b4j-" + space + ":" + i, () -> bucketConfiguration));
            workloads.add(
                    new Workload("bucket4j lettuce", i -> () -> buckets.get(i).tryConsume(1), hot));
            // what a Bucket4j user builds for the seed's shape: a bucket per identifier, each of three bandwidths,
            // both asked (two round trips at least; not all or nothing across the two)
            BucketConfiguration threeBandwidths = BucketConfiguration.builder()
                    .addLimit(limit -> limit.capacity(LIMIT).refillGreedy(LIMIT, Duration.ofSeconds(1)))
                    .addLimit(limit -> limit.capacity(LIMIT).refillGreedy(LIMIT, Duration.ofMinutes(1)))
                    .addLimit(limit -> limit.capacity(LIMIT).refillGreedy(LIMIT, Duration.ofHours(1)))
                    .build();
            List<BucketProxy[]> pairs = prepare(keys, i -> new BucketProxy[] {
                bucket4j.getProxy("b4j3-" + space + ":ip-" + i, () -> threeBandwidths),
                bucket4j.getProxy("b4j3-" + space + ":user-" + i, () -> threeBandwidths)
            });
            workloads.add(new Workload(
                    BUCKET4J_2X3,
                    i -> () -> {
                        BucketProxy[] pair = pairs.get(i);
                        if (pair[0].tryConsume(1)) {
                            pair[1].tryConsume(1);
                        }
                    },
                    hot));
            if (!hot) {
                workloads.add(new Workload(
                        "ours lock+release",
                        i -> () -> locks.tryAcquire(
                                        "job-" + i + "-"
                                                + ThreadLocalRandom.current().nextInt(),
                                        LockOptions.lease(Duration.ofSeconds(10)))
                                .release(),
                        false));
                workloads.add(new Workload(
                        "ours token issue+consume",
                        i -> () -> {
                            IssuedToken token = tokens.issue("bench", Map.of(), Duration.ofMinutes(1));
                            tokens.consume("bench", token.token());
                        },
                        false));
            }
            for (int concurrency : concurrencies) {
                List<Workload> selected = workloads.stream()
                        .filter(w -> only == null
                                || Arrays.stream(only.split(","))
                                        .anyMatch(part -> w.name().contains(part)
                                                || w.name().contains(part.replace('_', ' ')))
                                || w.name().startsWith("floor"))
                        .toList();
                for (Result result : measure(selected, keys, concurrency)) {
                    results.computeIfAbsent(space + "/" + concurrency, k -> new ArrayList<>())
                            .add(result);
                    System.out.printf(
                            Locale.ROOT,
                            "  %-26s %-4s c=%-3d %10.0f ops/s  p50 %7.0f us  p99 %7.0f us"
                                    + "  cpu/decision: client %5.1f us, redis %5.1f us%n",
                            result.workload(),
                            space,
                            concurrency,
                            result.opsPerSecond(),
                            result.p50Micros(),
                            result.p99Micros(),
                            result.clientCpuMicros(),
                            result.redisCpuMicros());
                }
            }
        }
        if (throughput && List.of(keyspaces.split(",")).contains("observed")) {
            observed(ours, () -> new RedisRateLimiter(redisson, "bench:", guard), results);
        }
        if (throughput && List.of(keyspaces.split(",")).contains("async")) {
            async(ours, results);
        }
        if (throughput && List.of(keyspaces.split(",")).contains("durable")) {
            durable(guard, results);
        }
        if (throughput && List.of(keyspaces.split(",")).contains("refused")) {
            refused(ours, oursRedisOnly, bucket4j, results);
        }
        if (throughput) {
            printTable(results);
            printTargets(results);
        }
        printMemoryAndCommands(ours, bucket4j, bucketConfiguration);
        printCommandMix(ours);
        locks.close();
    }

    /**
     * The refusal path: one client over its limit (1 per hour, used up before measuring) calls again and again. Ours
     * with local refusals (the default), ours asking Redis on every call (as before them), Bucket4j on Lettuce (its
     * refusal path: it reads the bucket and decides in the JVM), and the INCR floor.
     */
    private void refused(
            RedisRateLimiter ours,
            RedisRateLimiter redisOnly,
            LettuceBasedProxyManager<String> bucket4j,
            Map<String, List<Result>> results)
            throws Exception {
        List<Workload> workloads = new ArrayList<>();
        workloads.add(floor("refused", 1));
        for (Algorithm algorithm : Algorithm.values()) {
            RateLimit limit = RateLimit.of("refused-" + algorithm, algorithm, 1, 3_600_000);
            List<LimitRequest> request = List.of(LimitRequest.of(limit, "flooder", 1));
            ours.tryAcquire(request);
            String name = algorithm.name().toLowerCase(Locale.ROOT);
            workloads.add(new Workload("ours refused " + name, i -> () -> ours.tryAcquire(request), true));
            workloads.add(new Workload(
                    "ours refused " + name + " via Redis", i -> () -> redisOnly.tryAcquire(request), true));
        }
        BucketConfiguration one = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(1).refillGreedy(1, Duration.ofHours(1)))
                .build();
        BucketProxy bucket = bucket4j.getProxy("b4j-refused", () -> one);
        bucket.tryConsume(1);
        workloads.add(new Workload("bucket4j lettuce", i -> () -> bucket.tryConsume(1), true));
        measureAndPrint("refused", workloads, 1, results);
    }

    /**
     * What the replica acknowledgement of tokens and locks ({@code WAIT 1}) costs: token issue+consume and lock
     * acquire+release without it and with it, on the benchmark's Redis (no replica: the acknowledgement must cost
     * nothing) and on a second Redis with one replica on loopback (what waiting for the replica costs).
     */
    private void durable(RedisGuard guard, Map<String, List<Result>> results) throws Exception {
        int masterPort = freePort();
        int replicaPort = freePort();
        RedisServer master = RedisServer.newRedisServer()
                .port(masterPort)
                .setting("bind 127.0.0.1")
                .setting("save \"\"")
                .build();
        RedisServer replica = RedisServer.newRedisServer()
                .port(replicaPort)
                .setting("bind 127.0.0.1")
                .setting("save \"\"")
                .setting("replicaof 127.0.0.1 " + masterPort)
                .build();
        master.start();
        replica.start();
        Config config = new Config();
        config.useSingleServer()
                .setAddress("redis://127.0.0.1:" + masterPort)
                .setConnectionMinimumIdleSize(64)
                .setConnectionPoolSize(64);
        RedissonClient replicated = Redisson.create(config);
        try {
            RedisNode replicatedNode =
                    replicated.getRedisNodes(RedisNodes.SINGLE).getInstance();
            while (!"1"
                    .equals(replicatedNode
                            .info(RedisNode.InfoSection.REPLICATION)
                            .get("connected_slaves"))) {
                Thread.onSpinWait();
            }
            Duration wait = RedisSingleUseTokens.defaultReplicaWait(guard);
            List<Workload> workloads = new ArrayList<>();
            workloads.add(floor("durable", MANY_KEYS));
            workloads.add(tokenWorkload("token, no ack, no replica", redisson, guard, Duration.ZERO));
            workloads.add(tokenWorkload("token, ack, no replica", redisson, guard, wait));
            workloads.add(tokenWorkload("token, no ack, 1 replica", replicated, guard, Duration.ZERO));
            workloads.add(tokenWorkload("token, ack, 1 replica", replicated, guard, wait));
            List<RedisLockManager> managers = new ArrayList<>();
            workloads.add(lockWorkload("lock, no ack, no replica", redisson, guard, Duration.ZERO, managers));
            workloads.add(lockWorkload("lock, ack, no replica", redisson, guard, wait, managers));
            workloads.add(lockWorkload("lock, no ack, 1 replica", replicated, guard, Duration.ZERO, managers));
            workloads.add(lockWorkload("lock, ack, 1 replica", replicated, guard, wait, managers));
            measureAndPrint("durable", workloads, MANY_KEYS, results);
            managers.forEach(RedisLockManager::close);
        } finally {
            replicated.shutdown();
            replica.stop();
            master.stop();
        }
    }

    private static Workload tokenWorkload(String name, RedissonClient client, RedisGuard guard, Duration wait) {
        RedisSingleUseTokens tokens = new RedisSingleUseTokens(client, "bench:", guard, wait);
        return new Workload(
                name,
                i -> () -> {
                    IssuedToken token = tokens.issue("bench", Map.of(), Duration.ofMinutes(1));
                    tokens.consume("bench", token.token());
                },
                false);
    }

    private static Workload lockWorkload(
            String name, RedissonClient client, RedisGuard guard, Duration wait, List<RedisLockManager> managers) {
        RedisLockManager locks = new RedisLockManager(client, "bench:", guard, wait);
        managers.add(locks);
        return new Workload(
                name,
                i -> () -> locks.tryAcquire(
                                "job-" + i + "-" + ThreadLocalRandom.current().nextInt(),
                                LockOptions.lease(Duration.ofSeconds(10)))
                        .release(),
                false);
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * The non-blocking API against the blocking one, on 10,000 keys that admit: N threads each waiting for its
     * decision, against N decisions in flight with no thread waiting (and the INCR floor both ways).
     */
    private void async(RedisRateLimiter ours, Map<String, List<Result>> results) throws Exception {
        RateLimit limit = RateLimit.of("async", Algorithm.SLIDING_WINDOW, LIMIT, WINDOW.toMillis());
        List<List<LimitRequest>> requests = prepare(MANY_KEYS, i -> List.of(LimitRequest.of(limit, "user-" + i, 1)));
        List<RAtomicLong> counters = prepare(MANY_KEYS, i -> redisson.getAtomicLong("incr-async:" + i));
        List<Workload> workloads = List.of(
                floor("async", MANY_KEYS),
                Workload.async(
                        "floor: INCR async (Redisson)",
                        i -> () -> counters.get(i).incrementAndGetAsync(),
                        false),
                new Workload("ours sliding_window blocking", i -> () -> ours.tryAcquire(requests.get(i)), false),
                Workload.async("ours sliding_window async", i -> () -> ours.tryAcquireAsync(requests.get(i)), false));
        measureAndPrint("async", workloads, MANY_KEYS, results);
    }

    /**
     * What observations cost: the limiter plain, observed for an ObservationRegistry without handlers (no tracer, no
     * metrics handler), and observed for one with a handler that does nothing (a registry in use, the handler's own
     * work left out); each a limiter of its own, the last two with the starter's observation listener. 10,000 keys that
     * admit.
     */
    private void observed(
            RedisRateLimiter ours,
            java.util.function.Supplier<RedisRateLimiter> another,
            Map<String, List<Result>> results)
            throws Exception {
        RateLimit limit = RateLimit.of("observed", Algorithm.SLIDING_WINDOW, LIMIT, WINDOW.toMillis());
        List<List<LimitRequest>> requests = prepare(MANY_KEYS, i -> List.of(LimitRequest.of(limit, "user-" + i, 1)));
        RateLimiter noHandler = observedBy(another.get(), ObservationRegistry.create());
        ObservationRegistry withHandler = ObservationRegistry.create();
        withHandler.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        RateLimiter handled = observedBy(another.get(), withHandler);
        List<Workload> workloads = List.of(
                floor("observed", MANY_KEYS),
                new Workload("ours sliding_window", i -> () -> ours.tryAcquire(requests.get(i)), false),
                new Workload("ours observed, no handler", i -> () -> noHandler.tryAcquire(requests.get(i)), false),
                new Workload("ours observed, a handler", i -> () -> handled.tryAcquire(requests.get(i)), false));
        measureAndPrint("observed", workloads, MANY_KEYS, results);
    }

    /** The limiter told to the starter's observation listener for an application's ObservationRegistry. */
    private static RateLimiter observedBy(RedisRateLimiter limiter, ObservationRegistry registry) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(ObservationRegistry.class, () -> registry);
        context.register(RateLimitObservationAutoConfiguration.class);
        context.refresh();
        limiter.events().add(context.getBean(RateLimitListener.class));
        return limiter;
    }

    /** Measures the workloads at every concurrency, prints each result and keeps it under "section/concurrency". */
    private void measureAndPrint(String section, List<Workload> workloads, int keys, Map<String, List<Result>> results)
            throws Exception {
        for (int concurrency : concurrencies) {
            for (Result result : measure(workloads, keys, concurrency)) {
                results.computeIfAbsent(section + "/" + concurrency, k -> new ArrayList<>())
                        .add(result);
                System.out.printf(
                        Locale.ROOT,
                        "  %-34s c=%-3d %10.0f ops/s  p50 %7.0f us  p99 %7.0f us%n",
                        result.workload(),
                        concurrency,
                        result.opsPerSecond(),
                        result.p50Micros(),
                        result.p99Micros());
            }
        }
    }

    private Workload floor(String space, int keys) {
        List<RAtomicLong> counters = prepare(keys, i -> redisson.getAtomicLong("incr-" + space + ":" + i));
        return new Workload("floor: INCR (Redisson)", i -> () -> counters.get(i).incrementAndGet(), keys == 1);
    }

    /** The cheapest script: one command that only reads one key (the floor of every script call). */
    private static final String ONE_COMMAND_SCRIPT = "return redis.call('EXISTS', KEYS[1])";

    /** The cheapest script call through the same client: EVALSHA of {@link #ONE_COMMAND_SCRIPT}. */
    private Workload scriptFloor(String space, int keys) {
        return scriptCall(
                "floor: EVALSHA (Redisson)", ONE_COMMAND_SCRIPT, RScript.ReturnType.LONG, "script-" + space, keys);
    }

    /**
     * The commands of a lone sliding-window decision and nothing else: TIME, the header's GETRANGE, the entry's and
     * the header's SETRANGE, and a reply of one string, as the decision script sends and answers them. No decision
     * script can be cheaper with this key layout, so its ratio to the {@code EVALSHA} floor bounds a decision's.
     */
    private static final String LONE_DECISION_COMMANDS =
            "local c = redis.call c('TIME') c('GETRANGE', KEYS[1], '0', '23')"
                    + " c('SETRANGE', KEYS[1], '24', '123456') c('SETRANGE', KEYS[1], '0', '123456789012345678901234')"
                    + " return {'1,1795924765362,999999'}";

    private Workload commandsFloor(String space, int keys) {
        return scriptCall(
                "floor: a lone decision's commands (EVALSHA)",
                LONE_DECISION_COMMANDS,
                RScript.ReturnType.LIST,
                "commands-" + space,
                keys);
    }

    /**
     * The lone decision's own script (the shape of one sliding window, as the limiter assembles it) sent with the spec
     * the limiter sends, through the same client as the {@code EVALSHA} floor, with none of the limiter's Java around
     * it: no keys named, no reply read into a decision. Its ratio to the floor is what the script costs; the decision's
     * ratio to it, what the Java around it costs.
     */
    private Workload decisionScriptFloor(String space, int keys) {
        String source;
        try {
            source = ScriptProfile.decisionScript("1");
        } catch (Exception e) {
            throw new IllegalStateException("the decision script of one sliding window", e);
        }
        return scriptCall(
                "floor: the lone decision's script alone (EVALSHA)",
                source,
                RScript.ReturnType.LIST,
                "lone-" + space,
                keys,
                // one call of one key: its spec (decide/spec.lua) of one sliding window, cost 1, no flags
                "1",
                "1",
                "1," + LIMIT + "," + WINDOW.toMillis() + ",1,0,0");
    }

    /**
     * EVALSHA of {@code source} with {@code args} through the same client, on {@code keys} keys named from
     * {@code prefix}.
     */
    private Workload scriptCall(
            String name, String source, RScript.ReturnType reply, String prefix, int keys, Object... args) {
        RScript script = redisson.getScript(org.redisson.client.codec.StringCodec.INSTANCE);
        String sha = script.scriptLoad(source);
        List<List<Object>> keyLists = prepare(keys, i -> List.of(prefix + ":" + i));
        return new Workload(
                name, i -> () -> script.evalSha(RScript.Mode.READ_WRITE, sha, reply, keyLists.get(i), args), keys == 1);
    }

    private Workload redissonRateLimiter(String space, int keys, boolean hot) {
        List<RRateLimiter> limiters = prepare(keys, i -> {
            RRateLimiter limiter = redisson.getRateLimiter("rrl-" + space + ":" + i);
            limiter.trySetRate(RateType.OVERALL, LIMIT, WINDOW);
            return limiter;
        });
        return new Workload("redisson RRateLimiter", i -> () -> limiters.get(i).tryAcquire(), hot);
    }

    private static <T> List<T> prepare(int keys, IntFunction<T> factory) {
        List<T> list = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++) {
            list.add(factory.apply(i));
        }
        return list;
    }

    /**
     * Rounds over all workloads, one window of each per round, so that drift on a shared machine and the JIT's
     * warm-up touch every workload alike; the first round only warms up. Per workload: the median of its
     * windows' rates, latency percentiles over all its recorded calls, and CPU per decision over all of them.
     */
    private List<Result> measure(List<Workload> workloads, int keys, int concurrency) throws Exception {
        Map<Workload, List<Runnable>> operations = new LinkedHashMap<>();
        Map<Workload, List<Supplier<CompletionStage<?>>>> asyncOperations = new LinkedHashMap<>();
        Map<Workload, Tally> tallies = new LinkedHashMap<>();
        for (Workload workload : workloads) {
            if (workload.asyncForKey() != null) {
                asyncOperations.put(
                        workload, prepare(keys, i -> workload.asyncForKey().apply(i)));
            } else {
                operations.put(
                        workload, prepare(keys, i -> workload.operationForKey().apply(i)));
            }
            tallies.put(workload, new Tally());
        }
        for (int round = 0; round <= windows; round++) {
            for (Workload workload : workloads) {
                Window window = workload.asyncForKey() != null
                        ? runAsyncWindow(asyncOperations.get(workload), concurrency)
                        : runWindow(operations.get(workload), concurrency);
                if (round > 0) {
                    tallies.get(workload).add(window);
                }
            }
        }
        List<Result> results = new ArrayList<>();
        tallies.forEach((workload, tally) -> results.add(tally.result(workload.name(), keys, concurrency)));
        return results;
    }

    /** One measurement window of one workload: its rate, the latency of every call, CPU used. */
    record Window(double rate, long[] latencies, long clientCpuNanos, double redisCpuSeconds) {}

    /** The windows of one workload. */
    private static final class Tally {
        private final List<Window> windows = new ArrayList<>();

        void add(Window window) {
            windows.add(window);
        }

        Result result(String name, int keys, int concurrency) {
            double[] rates = windows.stream().mapToDouble(Window::rate).sorted().toArray();
            long[] all = windows.stream()
                    .flatMapToLong(w -> Arrays.stream(w.latencies()))
                    .sorted()
                    .toArray();
            long calls = all.length;
            double client = windows.stream().mapToLong(Window::clientCpuNanos).sum() / 1_000.0 / calls;
            double redis = windows.stream().mapToDouble(Window::redisCpuSeconds).sum() * 1e6 / calls;
            return new Result(
                    name,
                    keys,
                    concurrency,
                    rates[rates.length / 2],
                    percentile(all, 0.50) / 1_000.0,
                    percentile(all, 0.99) / 1_000.0,
                    client,
                    redis);
        }
    }

    /** `concurrency` callers on random keys: warm up for `warmupMs`, then record for `windowMs`. */
    private Window runWindow(List<Runnable> operations, int concurrency) throws Exception {
        int keys = operations.size();
        Recording recording = new Recording(concurrency);
        for (int t = 0; t < concurrency; t++) {
            int thread = t;
            Thread worker = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                try {
                    while (!recording.stop.get()) {
                        Runnable operation = operations.get(keys == 1 ? 0 : random.nextInt(keys));
                        long started = System.nanoTime();
                        operation.run();
                        recording.record(thread, System.nanoTime() - started);
                    }
                } finally {
                    recording.finished.countDown();
                }
            });
            worker.setDaemon(true);
            worker.start();
        }
        return recording.measure();
    }

    /**
     * `concurrency` chains of non-blocking calls on random keys: each chain sends its next call from the completion of
     * the last (looping while calls complete at once), so no thread waits; warm up, then record as for threads.
     */
    private Window runAsyncWindow(List<Supplier<CompletionStage<?>>> operations, int concurrency) throws Exception {
        Recording recording = new Recording(concurrency);
        for (int c = 0; c < concurrency; c++) {
            int chain = c;
            Runnable[] next = new Runnable[1];
            next[0] = () -> {
                while (!recording.stop.get()) {
                    Supplier<CompletionStage<?>> operation =
                            operations.get(ThreadLocalRandom.current().nextInt(operations.size()));
                    long started = System.nanoTime();
                    CompletableFuture<?> call = operation.get().toCompletableFuture();
                    if (!call.isDone()) {
                        call.whenComplete((result, error) -> {
                            recording.record(chain, System.nanoTime() - started);
                            next[0].run();
                        });
                        return;
                    }
                    recording.record(chain, System.nanoTime() - started);
                }
                recording.finished.countDown();
            };
            next[0].run();
        }
        return recording.measure();
    }

    /**
     * One window's samples, one slot per caller (a thread or a chain, whose calls follow one another, so a slot needs
     * no lock), and the measuring both kinds of caller share: warm up, record, stop, gather.
     */
    private final class Recording {
        final AtomicBoolean recording = new AtomicBoolean();
        final AtomicBoolean stop = new AtomicBoolean();
        final long[][] samples;
        final int[] counts;
        final CountDownLatch finished;

        Recording(int callers) {
            samples = new long[callers][];
            counts = new int[callers];
            finished = new CountDownLatch(callers);
            for (int c = 0; c < callers; c++) {
                samples[c] = new long[1 << 16];
            }
        }

        void record(int caller, long took) {
            if (recording.get()) {
                if (counts[caller] == samples[caller].length) {
                    samples[caller] = Arrays.copyOf(samples[caller], counts[caller] * 2);
                }
                samples[caller][counts[caller]++] = took;
            }
        }

        Window measure() throws InterruptedException {
            pause(warmupMs);
            long clientCpuBefore = clientCpuNanos();
            double redisCpuBefore = redisCpuSeconds();
            long started = System.nanoTime();
            recording.set(true);
            pause(windowMs);
            recording.set(false);
            long elapsed = System.nanoTime() - started;
            long clientCpu = clientCpuNanos() - clientCpuBefore;
            double redisCpu = redisCpuSeconds() - redisCpuBefore;
            stop.set(true);
            finished.await(30, TimeUnit.SECONDS);
            long[] latencies = new long[Arrays.stream(counts).sum()];
            int at = 0;
            for (int c = 0; c < counts.length; c++) {
                System.arraycopy(samples[c], 0, latencies, at, counts[c]);
                at += counts[c];
            }
            return new Window(latencies.length * 1e9 / elapsed, latencies, clientCpu, redisCpu);
        }
    }

    private static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))];
    }

    /** The benchmark's own pacing: windows are measured by wall time, so the main thread waits them out. */
    private static void pause(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    /** CPU time of this JVM (callers, client library, the benchmark's own loop), all threads. */
    private static long clientCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** CPU time of redis-server (user + system), as its INFO reports it. */
    private double redisCpuSeconds() {
        Map<String, String> cpu = node.info(RedisNode.InfoSection.CPU);
        return Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"));
    }

    private static void printTable(Map<String, List<Result>> results) {
        System.out.println();
        System.out.println(
                "| keys / callers | workload | decisions/s (median) | p50 µs | p99 µs | vs floor | vs Redisson RRateLimiter | vs Bucket4j | client CPU µs | Redis CPU µs |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        results.forEach((cell, list) -> {
            double floor = rate(list, "floor: INCR (Redisson)");
            double redisson = rate(list, "redisson RRateLimiter");
            double bucket4j = rate(list, "bucket4j lettuce");
            for (Result r : list) {
                System.out.printf(
                        Locale.ROOT,
                        "| %s | %s | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.1f | %.1f |%n",
                        cell,
                        r.workload(),
                        r.opsPerSecond(),
                        r.p50Micros(),
                        r.p99Micros(),
                        r.opsPerSecond() / floor,
                        r.opsPerSecond() / redisson,
                        r.opsPerSecond() / bucket4j,
                        r.clientCpuMicros(),
                        r.redisCpuMicros());
            }
        });
    }

    /** The ratios set as targets (issues 46 and 58), each from this run's own figures (NaN where a cell was not run). */
    private static void printTargets(Map<String, List<Result>> results) {
        System.out.println();
        System.out.println("| target | cell | ratio | goal |");
        System.out.println("|---|---|---:|---:|");
        results.forEach((cell, list) -> {
            double seed = rate(list, "ours 3 windows x 2 ids");
            double one = rate(list, "ours sliding_window");
            boolean many = cell.startsWith("10k");
            boolean single = cell.endsWith("/1");
            target(
                    "3 windows x 2 ids vs Bucket4j 2 x 3",
                    cell,
                    seed / rate(list, BUCKET4J_2X3),
                    many ? single ? 2 : 3 : 0);
            target("3 windows x 2 ids vs one sliding window", cell, seed / one, single ? 0 : many ? 0.75 : 0.6);
            target(
                    "one sliding window vs the EVALSHA floor",
                    cell,
                    one / rate(list, "floor: EVALSHA (Redisson)"),
                    single ? 0.9 : 0);
            target(
                    "a lone decision's commands alone vs the EVALSHA floor (the most a decision can reach)",
                    cell,
                    rate(list, "floor: a lone decision's commands (EVALSHA)") / rate(list, "floor: EVALSHA (Redisson)"),
                    0);
            if (single) { // at one caller: many callers share script calls, which the script alone does not
                target(
                        "the lone decision's script alone vs the EVALSHA floor (what the script costs)",
                        cell,
                        rate(list, "floor: the lone decision's script alone (EVALSHA)")
                                / rate(list, "floor: EVALSHA (Redisson)"),
                        0);
                target(
                        "one sliding window vs its script alone (what the Java around it costs)",
                        cell,
                        one / rate(list, "floor: the lone decision's script alone (EVALSHA)"),
                        0);
            }
            target(
                    "sliding window with a penalty vs without",
                    cell,
                    rate(list, "ours sliding_window penalty") / one,
                    0);
            target(
                    "sliding window with a share vs without",
                    cell,
                    rate(list, "ours sliding_window share 0.8") / one,
                    0);
            target(
                    "calendar month vs fixed window",
                    cell,
                    rate(list, "ours calendar month") / rate(list, "ours fixed_window"),
                    0);
            if (cell.startsWith("refused")) {
                target(
                        "refused (sliding window) vs Bucket4j",
                        cell,
                        rate(list, "ours refused sliding_window") / rate(list, "bucket4j lettuce"),
                        single ? 10 : 5);
            }
        });
    }

    private static void target(String what, String cell, double ratio, double goal) {
        if (!Double.isNaN(ratio)) {
            System.out.printf(Locale.ROOT, "| %s | %s | %.2f | %s |%n", what, cell, ratio, goal > 0 ? "≥ " + goal : "");
        }
    }

    private static double rate(List<Result> results, String workload) {
        return results.stream()
                .filter(r -> r.workload().equals(workload))
                .mapToDouble(Result::opsPerSecond)
                .findFirst()
                .orElse(Double.NaN);
    }

    /**
     * Redis commands per decision (inside scripts included), at the benchmark's limit; then MEMORY USAGE of every
     * key a fresh limiter of 1,000 per minute holds after 100 admissions (a limit low enough that the token
     * bucket's key, which lives only while the bucket is below full, still exists).
     */
    private void printMemoryAndCommands(
            RedisRateLimiter ours, LettuceBasedProxyManager<String> bucket4j, BucketConfiguration configuration) {
        System.out.println();
        System.out.println("| limiter | Redis commands per decision | Redis µs inside its script per decision"
                + " | Redis memory per key (1,000/min, 100 admitted) |");
        System.out.println("|---|---:|---:|---:|");
        BucketConfiguration small = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(1_000).refillGreedy(1_000, WINDOW))
                .build();
        for (Algorithm algorithm : Algorithm.values()) {
            RateLimit big = RateLimit.of("cmd", algorithm, LIMIT, WINDOW.toMillis());
            RateLimit limit = RateLimit.of("mem", algorithm, 1_000, WINDOW.toMillis());
            String id = "mem-" + algorithm;
            report(
                    "ours " + algorithm.name().toLowerCase(Locale.ROOT),
                    () -> ours.tryAcquire(List.of(LimitRequest.of(big, id, 1))),
                    () -> ours.tryAcquire(List.of(LimitRequest.of(limit, id, 1))),
                    "bench:*:mem:*");
        }
        RRateLimiter rrlBig = redisson.getRateLimiter("cmd-rrl");
        rrlBig.trySetRate(RateType.OVERALL, LIMIT, WINDOW);
        RRateLimiter rrl = redisson.getRateLimiter("mem-rrl");
        rrl.trySetRate(RateType.OVERALL, 1_000, WINDOW);
        report("redisson RRateLimiter", rrlBig::tryAcquire, rrl::tryAcquire, "*mem-rrl*");
        BucketProxy bucketBig = bucket4j.getProxy("cmd-b4j", () -> configuration);
        BucketProxy bucket = bucket4j.getProxy("mem-b4j", () -> small);
        report("bucket4j lettuce", () -> bucketBig.tryConsume(1), () -> bucket.tryConsume(1), "mem-b4j*");
        RAtomicLong counterBig = redisson.getAtomicLong("cmd-incr");
        RAtomicLong counter = redisson.getAtomicLong("mem-incr");
        report("floor: INCR", counterBig::incrementAndGet, counter::incrementAndGet, "mem-incr");
        RScript script = redisson.getScript(org.redisson.client.codec.StringCodec.INSTANCE);
        String sha = script.scriptLoad(ONE_COMMAND_SCRIPT);
        Runnable evalsha =
                () -> script.evalSha(RScript.Mode.READ_ONLY, sha, RScript.ReturnType.LONG, List.of("mem-sha"));
        report("floor: EVALSHA of a 1-command script", evalsha, evalsha, "mem-sha");
    }

    private void report(String name, Runnable decision, Runnable smallDecision, String pattern) {
        // warmed up well: a redis-server that just started spends nearly twice as long in the same script
        for (int i = 0; i < 3_000; i++) {
            decision.run();
        }
        long[] before = commands();
        int n = 3_000;
        for (int i = 0; i < n; i++) {
            decision.run();
        }
        long[] after = commands();
        double perDecision = (after[0] - before[0] - 1) / (double) n; // one INFO of our own
        // Redis's own time in the script of a decision sent alone (one caller), when a decision is one EVALSHA
        String micros = after[1] - before[1] == n
                ? String.format(Locale.ROOT, "%.1f", (after[2] - before[2]) / (double) n)
                : "-";
        for (int i = 0; i < 100; i++) {
            smallDecision.run();
        }
        long bytes = 0;
        for (String key : redisson.getKeys().getKeysByPattern(pattern)) {
            Long usage = redisson.getScript(org.redisson.client.codec.StringCodec.INSTANCE)
                    .eval(
                            RScript.Mode.READ_ONLY,
                            "return redis.call('MEMORY', 'USAGE', ARGV[1])",
                            RScript.ReturnType.LONG,
                            List.of(),
                            key);
            bytes += usage == null ? 0 : usage;
        }
        redisson.getKeys().deleteByPattern(pattern);
        System.out.printf(Locale.ROOT, "| %s | %.1f | %s | %d B |%n", name, perDecision, micros, bytes);
    }

    /**
     * Where a decision of the seed's shape (3 windows x 2 identifiers, one key per identifier) spends Redis's time with
     * 10,000 keys: the commands its script runs per decision, by name, and Redis's microseconds in the script, one
     * caller. Each key is asked once per pass over the keys, so that between two asks of a key its 1-second window has
     * let its previous entry go, as it does under load.
     */
    private void printCommandMix(RedisRateLimiter ours) {
        List<List<LimitRequest>> seed = new ArrayList<>();
        for (int i = 0; i < MANY_KEYS; i++) {
            List<LimitRequest> list = new ArrayList<>();
            for (long windowMs : new long[] {1_000, 60_000, 3_600_000}) {
                RateLimit limit = RateLimit.of("mix", Algorithm.SLIDING_WINDOW, LIMIT, windowMs);
                list.add(LimitRequest.of(limit, "ip-" + i, 1));
                list.add(LimitRequest.of(limit, "user-" + i, 1));
            }
            seed.add(list);
        }
        for (int pass = 0; pass < 3; pass++) {
            seed.forEach(ours::tryAcquire);
        }
        Map<String, long[]> before = commandStats();
        long started = System.nanoTime();
        seed.forEach(ours::tryAcquire);
        long elapsed = System.nanoTime() - started;
        Map<String, long[]> after = commandStats();
        System.out.println();
        System.out.printf(
                Locale.ROOT,
                "| 3 windows x 2 ids, %,d keys, one caller (%,.0f decisions/s) | calls per decision | µs per decision |%n",
                MANY_KEYS,
                MANY_KEYS / (elapsed / 1e9));
        System.out.println("|---|---:|---:|");
        after.forEach((command, counts) -> {
            long[] was = before.getOrDefault(command, new long[2]);
            long calls = counts[0] - was[0];
            if (calls > 0 && !command.equals("info")) {
                System.out.printf(
                        Locale.ROOT,
                        "| %s | %.2f | %.2f |%n",
                        command,
                        calls / (double) MANY_KEYS,
                        (counts[1] - was[1]) / (double) MANY_KEYS);
            }
        });
    }

    /** Calls and microseconds of each command so far (a script's time includes its commands'). */
    private Map<String, long[]> commandStats() {
        Map<String, long[]> stats = new TreeMap<>();
        node.info(RedisNode.InfoSection.COMMANDSTATS)
                .forEach((name, line) -> stats.put(
                        name.replace("cmdstat_", ""), new long[] {field(line, "calls="), field(line, "usec=")}));
        return stats;
    }

    /**
     * Every command Redis executed so far (inside scripts included), the {@code EVALSHA} calls among them, and the
     * microseconds Redis spent in those (their scripts' own commands included).
     */
    private long[] commands() {
        long calls = 0;
        long evalsha = 0;
        long evalshaMicros = 0;
        for (Map.Entry<String, String> stat :
                node.info(RedisNode.InfoSection.COMMANDSTATS).entrySet()) {
            String line = stat.getValue();
            long n = field(line, "calls=");
            calls += n;
            if (stat.getKey().endsWith("evalsha")) {
                evalsha += n;
                evalshaMicros += field(line, "usec=");
            }
        }
        return new long[] {calls, evalsha, evalshaMicros};
    }

    /** A number of a command's {@code INFO commandstats} line, such as {@code calls=}. */
    static long field(String line, String name) {
        int at = line.indexOf(name);
        return Long.parseLong(line.substring(at + name.length(), line.indexOf(',', at)));
    }

    private void close() {
        lettuceConnection.close();
        lettuce.shutdown();
        redisson.shutdown();
    }
}
