package io.github.ratelimit.benchmarks;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;

/**
 * One global limit over several instances, each its own Redis client (as separate application instances would be), on
 * one Redis: leased against exact, in one run ({@code --leased}).
 *
 * <ol>
 *   <li>Decisions per second of a limit never reached, exact (a script call per decision, coalesced per client) and
 *       leased, rounds interleaved, with the Redis script calls per 1,000 decisions.
 *   <li>Admitted per window against the limit, callers calling as fast as they can (every window refuses): the worst
 *       over-admission and under-admission of the measured windows, evenly spread; with one instance killed (its
 *       client shut down, nothing given back) in the middle of a window; and with one instance taking half the calls.
 *       A call counts in the window its lease was for; a call admitted by a lease after that window's end (started
 *       after it, by this machine's clock, which is Redis's) is counted as "spent late". Permits lost: what leases held
 *       when their windows ended, or granted by calls whose answers came after (the run's windows and those around).
 * </ol>
 *
 * Options: {@code --instances=8}, {@code --concurrency=64}, {@code --rounds=5} (of 1 s each per mode),
 * {@code --windows=60}, {@code --window-ms=200}, {@code --limit=2000} (per window), {@code --lease=0.1}.
 */
final class LeasedLimits {

    private final String url;
    private final int instances;
    private final int callers;

    private LeasedLimits(String url, int instances, int callers) {
        this.url = url;
        this.instances = instances;
        this.callers = callers;
    }

    static void run(String url, java.util.Map<String, String> options) throws Exception {
        int instances = Integer.parseInt(options.getOrDefault("instances", "8"));
        int callers = Integer.parseInt(options.getOrDefault("concurrency", "64"));
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "5"));
        int windows = Integer.parseInt(options.getOrDefault("windows", "60"));
        long windowMs = Long.parseLong(options.getOrDefault("window-ms", "200"));
        long limit = Long.parseLong(options.getOrDefault("limit", "2000"));
        double lease = Double.parseDouble(options.getOrDefault("lease", "0.1"));
        LeasedLimits bench = new LeasedLimits(url, instances, callers);
        System.out.printf(
                Locale.ROOT, "leased limits: %d instances (a Redis client each), %d callers%n", instances, callers);
        bench.throughput(rounds, lease);
        System.out.printf(
                Locale.ROOT,
                "%nadmitted per window of %d ms, limit %d, lease %.2f (ceiling %d), %d windows measured%n",
                windowMs,
                limit,
                lease,
                RateLimit.of("x", Algorithm.FIXED_WINDOW, limit, windowMs)
                        .withLease(lease)
                        .leaseCeiling(),
                windows);
        System.out.println("(worst under: the most a window that refused a call admitted less than the limit)");
        System.out.println(
                "| run | windows | admitted median | worst over | worst under | spent late | scripts per 1,000 | admitted per script"
                        + " | permits lost |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        bench.accuracy("flat out, even", windows, windowMs, limit, lease, 0, false, false);
        bench.accuracy("flat out, one instance takes half", windows, windowMs, limit, lease, 0, false, true);
        bench.accuracy("1.2x the limit, even", windows, windowMs, limit, lease, 1.2, false, false);
        bench.accuracy("1.2x the limit, an instance killed", windows, windowMs, limit, lease, 1.2, true, false);
        bench.accuracy("1.2x the limit, one instance takes half", windows, windowMs, limit, lease, 1.2, false, true);
    }

    /** A limit never reached: exact and leased, one round of each in turn, after one of each that warms up. */
    private void throughput(int rounds, double lease) throws Exception {
        RateLimit exact = RateLimit.of("global-" + UUID.randomUUID(), Algorithm.FIXED_WINDOW, 1_000_000_000L, 1000);
        RateLimit leased = RateLimit.of("global-" + UUID.randomUUID(), Algorithm.FIXED_WINDOW, 1_000_000_000L, 1000)
                .withLease(lease);
        Fleet fleet = new Fleet();
        try {
            List<double[]> exactRuns = new ArrayList<>();
            List<double[]> leasedRuns = new ArrayList<>();
            for (int round = 0; round <= rounds; round++) {
                double[] e = fleet.measure(exact, 1000);
                double[] l = fleet.measure(leased, 1000);
                if (round > 0) {
                    exactRuns.add(e);
                    leasedRuns.add(l);
                }
            }
            double exactRate = median(exactRuns, 0);
            double leasedRate = median(leasedRuns, 0);
            System.out.println("| mode | decisions/s (median) | script calls per 1,000 decisions |");
            System.out.println("|---|---:|---:|");
            System.out.printf(Locale.ROOT, "| exact | %,.0f | %.1f |%n", exactRate, median(exactRuns, 1));
            System.out.printf(
                    Locale.ROOT, "| leased (lease %.2f) | %,.0f | %.3f |%n", lease, leasedRate, median(leasedRuns, 1));
            System.out.printf(
                    Locale.ROOT,
                    "leased vs exact: %.1fx (target >= 5x at 64 callers over 8 instances); script calls per 1,000"
                            + " decisions, leased: %.3f (target <= 10)%n",
                    leasedRate / exactRate,
                    median(leasedRuns, 1));
        } finally {
            fleet.close();
        }
    }

    private static double median(List<double[]> runs, int field) {
        double[] values = runs.stream().mapToDouble(r -> r[field]).sorted().toArray();
        return values[values.length / 2];
    }

    /**
     * What each window admits against the limit, callers calling as fast as they can ({@code demand} 0) or paced to
     * {@code demand} times the limit in all (so that leases hold permits through the window, and one killed holds some).
     */
    private void accuracy(
            String run,
            int windows,
            long windowMs,
            long limit,
            double lease,
            double demand,
            boolean kill,
            boolean uneven)
            throws Exception {
        RateLimit global = RateLimit.of("global-" + UUID.randomUUID(), Algorithm.FIXED_WINDOW, limit, windowMs)
                .withLease(lease);
        Fleet fleet = new Fleet();
        try {
            // a whole window to start in, then the windows measured
            long base = System.currentTimeMillis() / windowMs + 2;
            long start = base * windowMs;
            long end = start + windows * windowMs;
            long killAt = start + windows / 2 * windowMs + windowMs / 2;
            int slots = windows + 4;
            long[][] admitted = new long[callers][slots];
            long[][] refused = new long[callers][slots];
            AtomicLong late = new AtomicLong();
            AtomicBoolean killed = new AtomicBoolean();
            long scriptsBefore = fleet.scriptCalls();
            CountDownLatch done = new CountDownLatch(callers);
            for (int c = 0; c < callers; c++) {
                int caller = c;
                int instance = uneven ? (c < callers / 2 ? 0 : 1 + c % (instances - 1)) : c % instances;
                Thread thread = new Thread(() -> {
                    try {
                        RedisRateLimiter limiter = fleet.limiters.get(instance);
                        List<LimitRequest> call = List.of(LimitRequest.of(global, "all", 1));
                        long now;
                        long intervalNanos =
                                demand == 0 ? 0 : (long) (windowMs * 1_000_000.0 * callers / (demand * limit));
                        long next = System.nanoTime();
                        while ((now = System.currentTimeMillis()) < end) {
                            if (intervalNanos > 0) {
                                // the load's pace, not a wait for anything
                                next += intervalNanos;
                                long ahead = next - System.nanoTime();
                                if (ahead > 0) {
                                    java.util.concurrent.locks.LockSupport.parkNanos(ahead);
                                }
                                now = System.currentTimeMillis();
                            }
                            if (instance == 0 && killed.get()) {
                                return;
                            }
                            if (kill && instance != 0 && now >= killAt && killed.compareAndSet(false, true)) {
                                fleet.clients.get(0).shutdown(0, 0, TimeUnit.MILLISECONDS);
                            }
                            Decision decision;
                            try {
                                decision = limiter.tryAcquire(call);
                            } catch (RuntimeException e) {
                                if (instance == 0 && killed.get()) {
                                    return;
                                }
                                throw e;
                            }
                            long index = decision.decidedAt().toEpochMilli() / windowMs - base;
                            if (index < 0 || index >= slots) {
                                continue;
                            }
                            if (decision.allowed()) {
                                admitted[caller][(int) index]++;
                                if (now >= (base + index + 1) * windowMs) {
                                    late.incrementAndGet();
                                }
                            } else {
                                refused[caller][(int) index]++;
                            }
                        }
                    } finally {
                        done.countDown();
                    }
                });
                thread.setDaemon(true);
                thread.start();
            }
            done.await();
            long scripts = fleet.scriptCalls() - scriptsBefore;
            long worstOver = 0;
            long worstUnder = 0;
            long decisions = 0;
            long admittedInAll = 0;
            long[] perWindow = new long[windows];
            for (int w = 0; w < windows; w++) {
                long a = 0;
                long r = 0;
                for (int c = 0; c < callers; c++) {
                    a += admitted[c][w];
                    r += refused[c][w];
                }
                decisions += a + r;
                admittedInAll += a;
                perWindow[w] = a;
                worstOver = Math.max(worstOver, a - limit);
                if (r > 0) {
                    worstUnder = Math.max(worstUnder, limit - a);
                }
            }
            Arrays.sort(perWindow);
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d | %d | %d | %d (%.1f %%) | %d | %.2f | %.1f | %d |%n",
                    run,
                    windows,
                    perWindow[windows / 2],
                    worstOver,
                    worstUnder,
                    100.0 * worstUnder / limit,
                    late.get(),
                    1000.0 * scripts / Math.max(1, decisions),
                    (double) admittedInAll / Math.max(1, scripts),
                    fleet.lost.sum());
        } finally {
            fleet.close();
        }
    }

    /** The instances: a Redis client and a rate limiter each. */
    private final class Fleet {

        final List<RedissonClient> clients = new ArrayList<>();
        final List<RedisRateLimiter> limiters = new ArrayList<>();
        final LongAdder taken = new LongAdder();
        final LongAdder lost = new LongAdder();
        final RedisNode node;

        Fleet() {
            for (int i = 0; i < instances; i++) {
                Config config = new Config();
                int pool = Math.max(2, callers / instances);
                config.useSingleServer()
                        .setAddress(url)
                        .setConnectionMinimumIdleSize(pool)
                        .setConnectionPoolSize(pool);
                RedissonClient client = Redisson.create(config);
                clients.add(client);
                RedisRateLimiter limiter = new RedisRateLimiter(
                        client, "bench:", new RedisGuard(Duration.ofSeconds(2), 5, Duration.ofSeconds(1)));
                limiter.events().add(new RateLimitListener() {
                    @Override
                    public void leased(String name, Lease outcome, long units) {
                        if (outcome == Lease.TAKEN) {
                            taken.add(units);
                        } else if (outcome == Lease.LOST) {
                            lost.add(units);
                        }
                    }
                });
                limiters.add(limiter);
            }
            node = clients.get(clients.size() - 1)
                    .getRedisNodes(RedisNodes.SINGLE)
                    .getInstance();
        }

        /** {decisions per second, script calls per 1,000 decisions} of every caller calling for {@code ms}. */
        double[] measure(RateLimit limit, long ms) throws Exception {
            LongAdder decisions = new LongAdder();
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch started = new CountDownLatch(callers);
            CountDownLatch done = new CountDownLatch(callers);
            for (int c = 0; c < callers; c++) {
                RedisRateLimiter limiter = limiters.get(c % instances);
                Thread thread = new Thread(() -> {
                    List<LimitRequest> call = List.of(LimitRequest.of(limit, "all", 1));
                    started.countDown();
                    try {
                        long n = 0;
                        while (!stop.get()) {
                            limiter.tryAcquire(call);
                            n++;
                        }
                        decisions.add(n);
                    } finally {
                        done.countDown();
                    }
                });
                thread.setDaemon(true);
                thread.start();
            }
            started.await();
            long scripts = scriptCalls();
            long from = System.nanoTime();
            Thread.sleep(ms); // the measured stretch: callers run until told to stop
            stop.set(true);
            done.await();
            double seconds = (System.nanoTime() - from) / 1e9;
            long calls = scriptCalls() - scripts;
            return new double[] {decisions.sum() / seconds, 1000.0 * calls / Math.max(1, decisions.sum())};
        }

        long scriptCalls() {
            long calls = 0;
            for (var entry : node.info(RedisNode.InfoSection.COMMANDSTATS).entrySet()) {
                if (entry.getKey().equals("cmdstat_evalsha") || entry.getKey().equals("cmdstat_eval")) {
                    calls += Benchmarks.field(entry.getValue(), "calls=");
                }
            }
            return calls;
        }

        void close() {
            for (RedissonClient client : clients) {
                if (!client.isShutdown()) {
                    client.shutdown();
                }
            }
        }
    }
}
