package io.github.ratelimit.benchmarks;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.AdaptivePermit;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter.Permit;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.concurrency.RedisConcurrencyLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;

/**
 * The fleet's adaptive concurrency limit against what a fleet would use instead, on one synthetic dependency
 * ({@code --adaptive}): it serves {@code C} calls at once at latency {@code L0} and queues the rest in order, so its
 * latency grows with what exceeds {@code C}. Open-loop load of three times its capacity ({@code 3 C / L0} calls a
 * second) is spread evenly over 2, then 4 instances, each its own Redis client on one Redis; {@code C} halves after a
 * third of the run and comes back after two thirds. Each instance count runs four limits, one after the other:
 *
 * <ul>
 *   <li>{@code fleet adaptive}: {@code @ConcurrencyLimited(adaptive = true)}'s limiter, one limit for the fleet (min 1,
 *       max 200, tolerance 1.5, windows of 250 ms);
 *   <li>{@code Gradient2 per node}: Netflix's {@code concurrency-limits} 0.5.4, a {@code SimpleLimiter} over a
 *       {@code Gradient2Limit} on each instance (min 1, initial 4, max 200, rttTolerance 1.5, its other settings its
 *       defaults), each adapting alone;
 *   <li>{@code static C}: a fixed fleet limit of exactly the first capacity (the oracle: it knows what nobody knows);
 *   <li>{@code static 3C}: a fixed fleet limit three times too high.
 * </ul>
 *
 * Each line: the goodput (completed calls a second over the run, and against what the capacity allows), the admitted
 * calls' p50 and p99 (from the slot taken to the call's end, its queueing included), the calls refused, the windows
 * of 250 ms the fleet's limit took to enter [0.8 C, 1.3 C] and stay there (one window outside allowed) after the start,
 * the halving and the restoring ({@code -} when it never did), and the Redis calls (script round trips: taking and
 * giving back slots, refusals and lease renewals included) per admitted call. A fleet's limit is the sum of the
 * nodes' limits for Gradient2. The instance count that runs first also pays the JVM's warm-up: a cold start.
 *
 * Options: {@code --instances=2,4}, {@code --capacity=20}, {@code --latency-ms=25}, {@code --phase-ms=8000}. With
 * {@code --cost}, instead: what one call costs, slot taken and given back on a limit never reached, 8 callers on one
 * client, the median of 5 one-second windows, with Redis's microseconds per script call.
 */
final class AdaptiveFleet {

    static final Duration WINDOW = Duration.ofMillis(250);
    static final Duration LEASE = Duration.ofSeconds(2);

    /** One instance's gate: a slot, or null when refused. */
    interface Gate {
        Slot take();
    }

    /** A slot taken; given back when the call ends. */
    interface Slot {
        void done();
    }

    /** One way to limit the fleet: a gate per instance, and the fleet's limit of the moment. */
    interface Strategy extends AutoCloseable {
        Gate gate(int instance);

        int fleetLimit();

        @Override
        void close();
    }

    /** The dependency: {@code capacity} calls at once at {@code latency}, the rest queued in order. */
    static final class Dependency {
        private final int most;
        private final Semaphore serving;
        private volatile int capacity;
        private final long latencyMs;

        Dependency(int capacity, long latencyMs) {
            this.most = capacity;
            this.capacity = capacity;
            this.serving = new Semaphore(capacity, true);
            this.latencyMs = latencyMs;
        }

        void call() throws InterruptedException {
            serving.acquire();
            try {
                Thread.sleep(latencyMs);
            } finally {
                serving.release();
            }
        }

        /** The capacity becomes {@code next}, at most the first; waits for calls being served to make room. */
        void capacity(int next) throws InterruptedException {
            if (next > most) {
                throw new IllegalArgumentException("at most " + most);
            }
            if (next < capacity) {
                serving.acquire(capacity - next);
            } else {
                serving.release(next - capacity);
            }
            capacity = next;
        }
    }

    /** What one run measured. */
    record Result(
            String strategy,
            int instances,
            double goodput,
            double goodputShare,
            double p50Ms,
            double p99Ms,
            long refused,
            String converged,
            double redisPerAdmitted,
            List<Integer> limits) {}

    private final String url;
    private final int capacity;
    private final long latencyMs;
    private final long phaseMs;

    private AdaptiveFleet(String url, int capacity, long latencyMs, long phaseMs) {
        this.url = url;
        this.capacity = capacity;
        this.latencyMs = latencyMs;
        this.phaseMs = phaseMs;
    }

    static void run(String url, Map<String, String> options) throws Exception {
        if (options.containsKey("cost")) {
            cost(url);
            return;
        }
        int capacity = Integer.parseInt(options.getOrDefault("capacity", "20"));
        long latencyMs = Long.parseLong(options.getOrDefault("latency-ms", "25"));
        long phaseMs = Long.parseLong(options.getOrDefault("phase-ms", "8000"));
        int[] fleets = Arrays.stream(options.getOrDefault("instances", "2,4").split(","))
                .mapToInt(Integer::parseInt)
                .toArray();
        AdaptiveFleet bench = new AdaptiveFleet(url, capacity, latencyMs, phaseMs);
        System.out.printf(
                Locale.ROOT,
                "adaptive concurrency: a dependency of C = %d at L0 = %d ms (%d calls/s at most), open load of %d"
                        + " calls/s; C halves at %d s and comes back at %d s; windows of %d ms%n",
                capacity,
                latencyMs,
                capacity * 1000 / latencyMs,
                3 * capacity * 1000 / latencyMs,
                phaseMs / 1000,
                2 * phaseMs / 1000,
                WINDOW.toMillis());
        List<Result> results = new ArrayList<>();
        for (int instances : fleets) {
            results.add(bench.drive("fleet adaptive", instances, bench.fleetAdaptive(instances)));
            results.add(bench.drive("Gradient2 per node", instances, gradient2(instances)));
            results.add(bench.drive("static C", instances, bench.fixed(instances, capacity)));
            results.add(bench.drive("static 3C", instances, bench.fixed(instances, 3 * capacity)));
        }
        System.out.printf(
                Locale.ROOT,
                "%n| instances | limit | goodput/s | of C/L0 | p50 ms | p99 ms | refused | windows to settle"
                        + " (start, halved, restored) | Redis calls per admitted call |%n");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (Result r : results) {
            System.out.printf(
                    Locale.ROOT,
                    "| %d | %s | %.0f | %.0f %% | %.1f | %.1f | %d | %s | %.2f |%n",
                    r.instances(),
                    r.strategy(),
                    r.goodput(),
                    100 * r.goodputShare(),
                    r.p50Ms(),
                    r.p99Ms(),
                    r.refused(),
                    r.converged(),
                    r.redisPerAdmitted());
        }
        System.out.println();
        for (Result r : results) {
            System.out.printf(
                    Locale.ROOT,
                    "%d instances, %s, the fleet's limit every 250 ms: %s%n",
                    r.instances(),
                    r.strategy(),
                    r.limits());
        }
    }

    private RedissonClient client() {
        Config config = new Config();
        config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(8).setConnectionPoolSize(32);
        return Redisson.create(config);
    }

    private static RedisGuard guard() {
        return new RedisGuard(Duration.ofSeconds(2), 5, Duration.ofSeconds(1));
    }

    /** Redis limiters, one client each; {@code gate} makes an instance's gate of its limiter. */
    private Strategy onRedis(
            int instances, IntFunction<Gate> gates, List<RedisConcurrencyLimiter> limiters, IntSupplier limit) {
        List<RedissonClient> clients = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            RedissonClient client = client();
            clients.add(client);
            limiters.add(new RedisConcurrencyLimiter(client, "bench-adaptive:", guard()));
        }
        return new Strategy() {
            @Override
            public Gate gate(int instance) {
                return gates.apply(instance);
            }

            @Override
            public int fleetLimit() {
                return limit.getAsInt();
            }

            @Override
            public void close() {
                limiters.forEach(RedisConcurrencyLimiter::close);
                clients.forEach(RedissonClient::shutdown);
            }
        };
    }

    private Strategy fleetAdaptive(int instances) {
        String name = "fleet-" + UUID.randomUUID().toString().substring(0, 8);
        ClientIdentifier key = ClientIdentifier.of("dependency");
        AdaptiveSettings settings = new AdaptiveSettings(1, 200, 1, 1.5, WINDOW);
        AtomicInteger seen = new AtomicInteger(1);
        List<RedisConcurrencyLimiter> limiters = new ArrayList<>();
        return onRedis(
                instances,
                instance -> () -> {
                    try {
                        AdaptivePermit permit = limiters.get(instance).tryAcquire(name, key, settings, LEASE, LEASE);
                        seen.set(permit.limit());
                        return permit::release;
                    } catch (ConcurrencyLimitExceededException e) {
                        seen.set(e.max());
                        return null;
                    }
                },
                limiters,
                seen::get);
    }

    private Strategy fixed(int instances, int max) {
        String name = "fixed-" + UUID.randomUUID().toString().substring(0, 8);
        ClientIdentifier key = ClientIdentifier.of("dependency");
        List<RedisConcurrencyLimiter> limiters = new ArrayList<>();
        return onRedis(
                instances,
                instance -> () -> {
                    try {
                        Permit permit = limiters.get(instance).tryAcquire(name, key, max, LEASE, LEASE);
                        return permit::release;
                    } catch (ConcurrencyLimitExceededException e) {
                        return null;
                    }
                },
                limiters,
                () -> max);
    }

    private static Strategy gradient2(int instances) {
        List<SimpleLimiter<Void>> nodes = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            nodes.add(SimpleLimiter.newBuilder()
                    .limit(Gradient2Limit.newBuilder()
                            .initialLimit(4)
                            .minLimit(1)
                            .maxConcurrency(200)
                            .rttTolerance(1.5)
                            .build())
                    .build());
        }
        return new Strategy() {
            @Override
            public Gate gate(int instance) {
                return () -> {
                    Optional<Limiter.Listener> listener = nodes.get(instance).acquire(null);
                    return listener.<Slot>map(taken -> taken::onSuccess).orElse(null);
                };
            }

            @Override
            public int fleetLimit() {
                return nodes.stream().mapToInt(SimpleLimiter::getLimit).sum();
            }

            @Override
            public void close() {}
        };
    }

    /** Acquire and release pairs a second on an adaptive limit never reached, and Redis's time per script call. */
    private static void cost(String url) throws Exception {
        AdaptiveFleet bench = new AdaptiveFleet(url, 1, 1, 1);
        RedissonClient client = bench.client();
        RedisConcurrencyLimiter limiter = new RedisConcurrencyLimiter(client, "bench-cost:", guard());
        AdaptiveSettings settings = new AdaptiveSettings(1_000_000, 1_000_000, 1_000_000, 2.0, Duration.ofMillis(100));
        ClientIdentifier key = ClientIdentifier.of("dependency");
        List<Long> rates = new ArrayList<>();
        long[] before = bench.scripts();
        for (int second = 0; second < 6; second++) {
            AtomicLong pairs = new AtomicLong();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            List<Thread> callers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                Thread caller = new Thread(() -> {
                    while (System.nanoTime() < end) {
                        limiter.tryAcquire("cost", key, settings, LEASE, LEASE).release();
                        pairs.incrementAndGet();
                    }
                });
                caller.start();
                callers.add(caller);
            }
            for (Thread caller : callers) {
                caller.join();
            }
            if (second > 0) { // the first warms up
                rates.add(pairs.get());
            }
        }
        long[] after = bench.scripts();
        long scripts = after[0] - before[0];
        double micros = (double) (after[1] - before[1]) / Math.max(1, scripts);
        java.util.Collections.sort(rates);
        System.out.printf(
                Locale.ROOT,
                "adaptive slot taken and given back: median %d pairs/s of %s; Redis %.1f µs per script call%n",
                rates.get(2),
                rates,
                micros);
        limiter.close();
        client.shutdown();
    }

    /** Drives one strategy through the three phases and measures it. */
    private Result drive(String label, int instances, Strategy strategy) throws Exception {
        Dependency dependency = new Dependency(capacity, latencyMs);
        ScheduledExecutorService clock = Executors.newScheduledThreadPool(2);
        ExecutorService callers = Executors.newCachedThreadPool();
        ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        AtomicLong refused = new AtomicLong();
        AtomicLong arrivals = new AtomicLong();
        List<Integer> limits = java.util.Collections.synchronizedList(new ArrayList<>());
        long commandsBefore = commands();
        try (strategy) {
            long started = System.nanoTime();
            long tickMs = 5;
            double perTick = 3.0 * capacity / latencyMs * tickMs;
            double[] owed = new double[1];
            clock.scheduleAtFixedRate(
                    () -> {
                        owed[0] += perTick;
                        while (owed[0] >= 1) {
                            owed[0]--;
                            int instance = (int) (arrivals.getAndIncrement() % instances);
                            callers.execute(() -> {
                                Slot slot = strategy.gate(instance).take();
                                if (slot == null) {
                                    refused.incrementAndGet();
                                    return;
                                }
                                long taken = System.nanoTime();
                                try {
                                    dependency.call();
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                    return;
                                }
                                long latency = System.nanoTime() - taken;
                                slot.done();
                                latencies.add(latency);
                            });
                        }
                    },
                    0,
                    tickMs,
                    TimeUnit.MILLISECONDS);
            clock.scheduleAtFixedRate(
                    () -> limits.add(strategy.fleetLimit()),
                    WINDOW.toMillis(),
                    WINDOW.toMillis(),
                    TimeUnit.MILLISECONDS);
            Thread.sleep(phaseMs);
            dependency.capacity(capacity / 2);
            Thread.sleep(phaseMs);
            dependency.capacity(capacity);
            Thread.sleep(phaseMs);
            clock.shutdownNow();
            double seconds = (System.nanoTime() - started) / 1e9;
            callers.shutdown();
            callers.awaitTermination(30, TimeUnit.SECONDS);
            long[] sorted =
                    latencies.stream().mapToLong(Long::longValue).sorted().toArray();
            long admitted = sorted.length;
            long commands = commands() - commandsBefore;
            // what the dependency could have done: C / L0 for two thirds of the run, C / 2 / L0 for one
            double possible = (2 * capacity + capacity / 2.0) * 1000.0 / latencyMs / 3;
            int perPhase = (int) (phaseMs / WINDOW.toMillis());
            List<Integer> byWindow = new ArrayList<>(limits);
            String converged = settle(byWindow, 0, perPhase, capacity) + ", "
                    + settle(byWindow, perPhase, perPhase, capacity / 2) + ", "
                    + settle(byWindow, 2 * perPhase, perPhase, capacity);
            Result result = new Result(
                    label,
                    instances,
                    admitted / seconds,
                    admitted / seconds / possible,
                    percentile(sorted, 0.50) / 1e6,
                    percentile(sorted, 0.99) / 1e6,
                    refused.get(),
                    converged,
                    admitted == 0 ? 0 : (double) commands / admitted,
                    byWindow);
            System.out.printf(
                    Locale.ROOT,
                    "%d instances, %-18s goodput %.0f/s (%.0f %%), p50 %.1f ms, p99 %.1f ms, refused %d, settled %s%n",
                    instances,
                    label,
                    result.goodput(),
                    100 * result.goodputShare(),
                    result.p50Ms(),
                    result.p99Ms(),
                    result.refused(),
                    converged);
            return result;
        } finally {
            clock.shutdownNow();
            callers.shutdownNow();
        }
    }

    /**
     * The windows from {@code from}, within one phase, until the limit was in [0.8 C, 1.3 C] and stayed there to the
     * phase's end, one window outside allowed; "-" when it never settled.
     */
    static String settle(List<Integer> limits, int from, int length, int capacity) {
        int end = Math.min(limits.size(), from + length);
        for (int start = from; start < end; start++) {
            int outside = 0;
            for (int i = start; i < end && outside <= 1; i++) {
                int limit = limits.get(i);
                if (limit < 0.8 * capacity || limit > 1.3 * capacity) {
                    outside++;
                }
            }
            boolean within = limits.get(start) >= 0.8 * capacity && limits.get(start) <= 1.3 * capacity;
            if (within && outside <= 1) {
                return Integer.toString(start - from + 1);
            }
        }
        return "-";
    }

    private static long percentile(long[] sorted, double share) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.floor(share * (sorted.length - 1))];
    }

    /**
     * The script calls Redis has run so far (every call of the limiters is one, a round trip each) and the
     * microseconds it spent in them, read from one {@code INFO commandstats}.
     */
    private long[] scripts() {
        RedissonClient client = client();
        try {
            long calls = 0;
            long usec = 0;
            for (var entry : client.getRedisNodes(RedisNodes.SINGLE)
                    .getInstance()
                    .info(org.redisson.api.redisnode.RedisNode.InfoSection.COMMANDSTATS)
                    .entrySet()) {
                if (entry.getKey().startsWith("cmdstat_eval")) {
                    calls += Benchmarks.field(entry.getValue(), "calls=");
                    usec += Benchmarks.field(entry.getValue(), "usec=");
                }
            }
            return new long[] {calls, usec};
        } finally {
            client.shutdown();
        }
    }

    private long commands() {
        return scripts()[0];
    }
}
