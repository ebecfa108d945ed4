package io.github.ratelimit.test.kit;

import java.time.Duration;
import java.util.concurrent.Semaphore;

/**
 * A dependency whose capacity the limit is not told: {@code capacity} calls at once at latency {@code L0}, the rest
 * queued in order, so that latency grows with what exceeds the capacity. Its capacity can halve and come back, its
 * latency rise, and it can fail every call at once, as a dependency in an incident does.
 */
final class HiddenCapacity {

    /** The most the capacity ever is; the part held back is taken by this class, in the queue's order. */
    private final int most;

    private final Semaphore service;
    private volatile int capacity;
    private volatile Duration latency;
    private volatile boolean failing;

    HiddenCapacity(int capacity, Duration latency) {
        this.most = capacity;
        this.service = new Semaphore(capacity, true);
        this.capacity = capacity;
        this.latency = latency;
    }

    /** One call: waits its turn, then takes the latency; or fails at once while failing. */
    void call() throws InterruptedException {
        if (failing) {
            throw new IllegalStateException("the dependency fails every call");
        }
        service.acquire();
        try {
            Thread.sleep(latency.toMillis());
        } finally {
            service.release();
        }
    }

    /** Changes the capacity to {@code next}, at most the first capacity; waits for calls in service to make room. */
    void capacity(int next) throws InterruptedException {
        if (next < 1 || next > most) {
            throw new IllegalArgumentException("capacity from 1 to " + most + ", but was " + next);
        }
        if (next < capacity) {
            service.acquire(capacity - next);
        } else {
            service.release(next - capacity);
        }
        capacity = next;
    }

    void latency(Duration next) {
        latency = next;
    }

    void failing(boolean next) {
        failing = next;
    }
}
