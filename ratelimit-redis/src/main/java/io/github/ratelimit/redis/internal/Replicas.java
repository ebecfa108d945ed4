package io.github.ratelimit.redis.internal;

import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.redis.RedisGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodeAsync;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.config.Config;

/**
 * Whether any master of the deployment has a replica connected ({@code INFO replication}'s {@code connected_slaves}),
 * asked without blocking and kept for a few seconds: a Redis without replicas has nothing a failover could promote, so
 * waiting for a replica's acknowledgement there would only cost time.
 */
public final class Replicas {

    private static final long KEPT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final RedissonClient redisson;
    private final AtomicBoolean probing = new AtomicBoolean();
    private volatile @Nullable CompletableFuture<Boolean> first;
    private volatile @Nullable Boolean known;
    private volatile long knownAt;

    public Replicas(RedissonClient redisson) {
        this.redisson = redisson;
    }

    /**
     * Whether a replica is connected to any master: the last answer while it is fresh, a new question (answered from
     * the last answer meanwhile) when it is older, the first question's answer before there is one. A question that
     * fails counts as "yes": waiting for an acknowledgement that does not come refuses, it never loses a write.
     */
    public CompletableFuture<Boolean> present() {
        Boolean last = known;
        if (last != null) {
            if (System.nanoTime() - knownAt > KEPT_NANOS) {
                probe();
            }
            return CompletableFuture.completedFuture(last);
        }
        CompletableFuture<Boolean> pending = first;
        if (pending == null || pending.isDone()) {
            pending = probe();
        }
        return pending == null ? CompletableFuture.completedFuture(true) : pending;
    }

    /** Asks every master, unless a question is on its way; returns the answer to come, or null. */
    private @Nullable CompletableFuture<Boolean> probe() {
        if (!probing.compareAndSet(false, true)) {
            return first;
        }
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        first = answer;
        try {
            List<CompletableFuture<Map<String, String>>> infos = new ArrayList<>();
            for (RedisNodeAsync master : masters()) {
                infos.add(master.infoAsync(RedisNode.InfoSection.REPLICATION).toCompletableFuture());
            }
            CompletableFuture.allOf(infos.toArray(CompletableFuture[]::new)).whenComplete((done, error) -> {
                boolean present = true;
                if (error == null && !infos.isEmpty()) {
                    present = infos.stream().anyMatch(info -> connected(info.join()) > 0);
                    known = present;
                    knownAt = System.nanoTime();
                }
                probing.set(false);
                answer.complete(present);
            });
        } catch (RuntimeException e) {
            probing.set(false);
            answer.complete(true);
        }
        return answer;
    }

    /** A replica wait must be zero (off) or positive and shorter than the budget it is spent in. */
    public static void checkWait(Duration replicaWait, RedisGuard guard, String property) {
        if (replicaWait == null || replicaWait.isNegative() || (!replicaWait.isZero() && replicaWait.toMillis() < 1)) {
            throw new IllegalArgumentException(
                    property + " replica wait must be zero (off) or at least 1 ms, but was " + replicaWait);
        }
        if (replicaWait.compareTo(guard.budget()) >= 0) {
            throw new IllegalArgumentException(property + " replica wait (" + replicaWait.toMillis()
                    + " ms) must be shorter than ratelimit.redis.timeout ("
                    + guard.budget().toMillis()
                    + " ms): the wait is spent inside the call's budget");
        }
    }

    /** What a write no replica acknowledged in time is reported as (after it was undone). */
    public static RedisUnavailableException notAcknowledged(String what, String undone) {
        return new RedisUnavailableException(
                "No replica acknowledged " + what + " in time, so a failover could undo it: it was " + undone
                        + " and is not reported as done",
                Duration.ofSeconds(1),
                null);
    }

    private static long connected(Map<String, String> info) {
        String value = info.get("connected_slaves");
        try {
            return value == null ? 0 : Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private Collection<? extends RedisNodeAsync> masters() {
        Config config = redisson.getConfig();
        if (config.isClusterConfig()) {
            return redisson.getRedisNodes(RedisNodes.CLUSTER).getMasters();
        }
        if (config.isSentinelConfig()) {
            return List.of(
                    redisson.getRedisNodes(RedisNodes.SENTINEL_MASTER_SLAVE).getMaster());
        }
        if (config.isSingleConfig()) {
            return List.of(redisson.getRedisNodes(RedisNodes.SINGLE).getInstance());
        }
        return List.of(redisson.getRedisNodes(RedisNodes.MASTER_SLAVE).getMaster());
    }
}
