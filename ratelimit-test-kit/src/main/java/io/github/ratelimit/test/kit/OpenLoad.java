package io.github.ratelimit.test.kit;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.AdaptivePermit;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimitExceededException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Open-loop load on a {@link HiddenCapacity} through an adaptive limit: arrivals at a fixed rate, whatever the
 * answers, spread over the instances; each admitted call runs the dependency and gives its slot back (dropped when the
 * dependency failed). It records what the tests assert: the limit of each moment, what ran at once against it, every
 * admitted call's latency and end, and the refusals with how long they took.
 */
final class OpenLoad implements AutoCloseable {

    /** One admitted call: when it ended (ns, this JVM's clock) and how long it held its slot. */
    record Call(long endedAt, long latencyNanos, boolean dropped) {}

    /** The limit one permit or refusal reported, and when. */
    record Limit(long at, int limit) {}

    private final ScheduledExecutorService arrivals = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final IntFunction<AdaptiveConcurrencyLimiter> instances;
    private final int instanceCount;
    private final HiddenCapacity dependency;
    private final String name;
    private final ClientIdentifier key;
    private final AdaptiveSettings settings;
    private final Duration lease;
    private final AtomicLong arrived = new AtomicLong();
    /** The limits the calls in flight were admitted at, highest first (guarded by itself). */
    private final PriorityQueue<Integer> admittedAt = new PriorityQueue<>(Comparator.reverseOrder());
    /** Instances that stopped: their callers abandon their slots, as a killed instance would. */
    private final boolean[] lost;

    final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Limit> limits = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Long> slowRefusals = new ConcurrentLinkedQueue<>();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong failures = new AtomicLong();
    /**
     * Admissions that found more calls in flight, across the instances, than the highest limit any of them was
     * admitted at: a limit that shrank lets the calls it admitted end, it never admits past itself.
     */
    final AtomicLong overLimit = new AtomicLong();
    /** The most calls in flight at once. */
    final AtomicInteger mostInFlight = new AtomicInteger();

    OpenLoad(
            IntFunction<AdaptiveConcurrencyLimiter> instances,
            int instanceCount,
            HiddenCapacity dependency,
            String name,
            AdaptiveSettings settings,
            Duration lease) {
        this.instances = instances;
        this.instanceCount = instanceCount;
        this.lost = new boolean[instanceCount];
        this.dependency = dependency;
        this.name = name;
        this.key = ClientIdentifier.of(name);
        this.settings = settings;
        this.lease = lease;
    }

    /** Starts {@code perSecond} arrivals a second, in ticks of 5 ms. */
    OpenLoad start(int perSecond) {
        long tickMs = 5;
        double perTick = perSecond * tickMs / 1000.0;
        double[] owed = new double[1];
        arrivals.scheduleAtFixedRate(
                () -> {
                    owed[0] += perTick;
                    while (owed[0] >= 1) {
                        owed[0]--;
                        int instance = (int) (arrived.getAndIncrement() % instanceCount);
                        callers.execute(() -> arrive(instance));
                    }
                },
                0,
                tickMs,
                TimeUnit.MILLISECONDS);
        return this;
    }

    /** The instance stops: its callers take no more slots, and those in flight are never given back. */
    void lose(int instance) {
        lost[instance] = true;
    }

    private void arrive(int instance) {
        if (lost[instance]) {
            return;
        }
        long asked = System.nanoTime();
        AdaptivePermit permit;
        try {
            permit = instances.apply(instance).tryAcquire(name, key, settings, lease, lease);
        } catch (ConcurrencyLimitExceededException e) {
            refused.incrementAndGet();
            limits.add(new Limit(System.nanoTime(), e.max()));
            slowRefusals.add(System.nanoTime() - asked);
            return;
        } catch (RuntimeException e) {
            failures.incrementAndGet();
            return;
        }
        long taken = System.nanoTime();
        limits.add(new Limit(taken, permit.limit()));
        synchronized (admittedAt) {
            admittedAt.add(permit.limit());
            if (admittedAt.size() > admittedAt.peek()) {
                overLimit.incrementAndGet();
            }
            mostInFlight.accumulateAndGet(admittedAt.size(), Math::max);
        }
        boolean dropped = false;
        try {
            dependency.call();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (RuntimeException e) {
            dropped = true;
        }
        if (lost[instance]) {
            // killed mid-call: the slot is abandoned, and the store frees it when its lease (here its lifetime too)
            // runs out; it stops counting a little before, so that this count never exceeds the store's
            long freed = taken + lease.toNanos() - TimeUnit.MILLISECONDS.toNanos(100);
            arrivals.schedule(
                    () -> {
                        synchronized (admittedAt) {
                            admittedAt.remove(permit.limit());
                        }
                    },
                    Math.max(0, freed - System.nanoTime()),
                    TimeUnit.NANOSECONDS);
            return;
        }
        synchronized (admittedAt) {
            admittedAt.remove(permit.limit());
        }
        long ended = System.nanoTime();
        if (dropped) {
            permit.drop();
        } else {
            permit.release();
        }
        calls.add(new Call(ended, ended - taken, dropped));
    }

    /**
     * The limit window by window from {@code from} (ns) for {@code windows} windows: the last limit reported in each,
     * or the one before it when a window reported none.
     */
    List<Integer> limitsByWindow(long from, int windows) {
        long length = settings.window().toNanos();
        int[] last = new int[windows];
        long[] lastAt = new long[windows];
        Arrays.fill(lastAt, Long.MIN_VALUE);
        for (Limit limit : limits) {
            long offset = limit.at() - from;
            if (offset < 0) {
                continue;
            }
            int window = (int) (offset / length);
            if (window < windows && limit.at() >= lastAt[window]) {
                last[window] = limit.limit();
                lastAt[window] = limit.at();
            }
        }
        List<Integer> byWindow = new ArrayList<>();
        int previous = 0;
        for (int i = 0; i < windows; i++) {
            previous = lastAt[i] == Long.MIN_VALUE ? previous : last[i];
            byWindow.add(previous);
        }
        return byWindow;
    }

    /** The calls that ended from {@code from} to {@code to} (ns). */
    List<Call> callsBetween(long from, long to) {
        return calls.stream()
                .filter(call -> call.endedAt() >= from && call.endedAt() < to)
                .toList();
    }

    /** How long the refusals took to answer, at {@code share} (ns). */
    long refusalPercentile(double share) {
        long[] sorted =
                slowRefusals.stream().mapToLong(Long::longValue).sorted().toArray();
        return sorted.length == 0 ? 0 : sorted[(int) Math.floor(share * (sorted.length - 1))];
    }

    /** Stops the arrivals and lets the calls in flight end and give their slots back. */
    @Override
    public void close() throws InterruptedException {
        arrivals.shutdownNow();
        callers.shutdown();
        if (!callers.awaitTermination(30, TimeUnit.SECONDS)) {
            callers.shutdownNow();
        }
    }
}
