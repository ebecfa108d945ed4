package io.github.ratelimit.sample;

import io.github.ratelimit.annotation.Locked;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A job named {@code digest} every second, run once per tick across every instance: a busy lock skips the run (no
 * error), and the lock stays taken 900 ms after the run started, so an instance whose schedule fires later in the same
 * second finds it taken. Its runs are counted in Redis, for all instances (in this instance's memory on the memory
 * store, where there is no Redis).
 */
@RestController
@Configuration(proxyBeanMethods = false)
@EnableScheduling
class DigestJob {

    static final String RUNS = "sample:jobs:digest:runs";

    /** Where the runs are counted: in Redis for every instance, or in this instance's memory on the memory store. */
    private final AtomicLong inMemory = new AtomicLong();

    private final @Nullable RedissonClient redis;

    DigestJob(ObjectProvider<RedissonClient> redis) {
        this.redis = redis.getIfAvailable();
    }

    @Scheduled(fixedRate = 1_000)
    @Locked(name = "digest", minHoldMs = 900)
    public void digest() {
        countRun(); // the job's short body
    }

    private void countRun() {
        if (redis == null) {
            inMemory.incrementAndGet();
        } else {
            redis.getAtomicLong(RUNS).incrementAndGet();
        }
    }

    /** How many times the job ran so far, on every instance together. */
    @GetMapping("/api/jobs/digest")
    Map<String, Object> runs() {
        return Map.of(
                "runs",
                redis == null ? inMemory.get() : redis.getAtomicLong(RUNS).get());
    }
}
