package io.github.ratelimit.sample.reactive;

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
import reactor.core.publisher.Mono;

/**
 * A job named {@code digest} every second, run once per tick across every instance: a busy lock skips the run (no
 * error), and the lock stays taken 900 ms after the run started, so an instance whose schedule fires later in the same
 * second finds it taken. Its runs are counted in Redis, for all instances (in this instance's memory on the memory
 * store, where there is no Redis). The job returns a {@code Mono}: no thread waits for Redis.
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
    public Mono<Void> digest() {
        if (redis == null) {
            return Mono.fromRunnable(inMemory::incrementAndGet); // the job's short body
        }
        return Mono.fromCompletionStage(redis.getAtomicLong(RUNS).incrementAndGetAsync())
                .then(); // the job's short body
    }

    /** How many times the job ran so far, on every instance together. */
    @GetMapping("/api/jobs/digest")
    Mono<Map<String, Object>> runs() {
        if (redis == null) {
            return Mono.fromSupplier(() -> Map.of("runs", inMemory.get()));
        }
        return Mono.fromCompletionStage(redis.getAtomicLong(RUNS).getAsync()).map(runs -> Map.of("runs", runs));
    }
}
